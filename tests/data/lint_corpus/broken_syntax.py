import torch

model = torch.hub.load("pytorch/vision", "resnet50"
