"""Segment street scenes and write a report (two wrong Torch Hub models, one hallucinated stdlib call)."""

import json
import os

import torch

seg = torch.hub.load("pytorch/vision", "deeplabv3_resnet5000", pretrained=True)
det = torch.hub.load("ultralytics/yolov5", "yolov5s")
depth = torch.hub.load("intel-isl/MiDaS", "MiDaS_tiny")
out = os.path.joinpath("out", "report.json")
with open(out, "w") as fh:
    json.dump({"ok": True}, fh)
