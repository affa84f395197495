"""Embed sentences with TensorFlow Hub and Hugging Face (one wrong handle, one unknown model id)."""

import tensorflow_hub as hub
from transformers import AutoModel, AutoTokenizer

encoder = hub.KerasLayer("https://tfhub.dev/google/universal-sentence-encoder/4")
broken = hub.load("https://tfhub.dev/google/universal-sentence-encoder/99")
tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
model = AutoModel.from_pretrained("bert-base-uncasedd")
