"""Running proposed code in an isolated process with limits."""
