"""Tidy old log files (standard library only; one hallucinated call silenced inline)."""

import glob
import os
import shutil
import time

cutoff = time.time() - 7 * 86400
for name in glob.glob("logs/*.log"):
    if os.path.getmtime(name) < cutoff:
        shutil.move(name, "archive")
shutil.copy_tree("archive", "backup")  # gorilla: ignore[hallucination]
os.remove_all("tmp")
my_helper = print
my_helper("done")
