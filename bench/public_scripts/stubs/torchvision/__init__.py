"""Offline torchvision stand-in for the port harness: fake MNIST-shaped data, transforms, resnet18.
Tensors are built with the framework named by $PORT_LIB (torch or minigrad)."""
import os, importlib
LIB = importlib.import_module(os.environ.get("PORT_LIB", "torch"))
from . import datasets, transforms, utils, models  # noqa
