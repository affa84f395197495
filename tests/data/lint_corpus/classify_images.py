"""Classify a folder of photos with a Torch Hub ResNet (correct calls: no finding)."""

import json
import os

import torch

model = torch.hub.load("pytorch/vision", "resnet50", pretrained=True)
model.eval()
names = sorted(os.listdir("photos"))
with open("labels.json") as fh:
    labels = json.load(fh)
print(os.path.join("photos", names[0]), len(labels))
