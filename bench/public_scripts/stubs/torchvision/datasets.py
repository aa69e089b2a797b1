import numpy as np
from . import LIB

def _digits28(train, n=None):
    from sklearn.datasets import load_digits
    d = load_digits()
    x = d.images.astype(np.float32) / 16.0       # 8x8 in [0,1]
    x = np.kron(x, np.ones((3, 3), np.float32))   # 24x24
    x = np.pad(x, ((0, 0), (2, 2), (2, 2)))       # 28x28
    x = (x * 255).round().astype(np.uint8)
    y = d.target.astype(np.int64)
    sel = slice(0, 1500) if train else slice(1500, None)
    x, y = x[sel], y[sel]
    if n is not None:
        x, y = x[:n], y[:n]
    return x, y

class MNIST:
    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        x, y = _digits28(train)
        self.data = LIB.tensor(x)
        self.targets = LIB.tensor(y)
        self._x, self._y = x, y
        self.transform, self.target_transform = transform, target_transform
    def __len__(self): return len(self._y)
    def __getitem__(self, i):
        img, t = self._x[i], int(self._y[i])
        try:
            from PIL import Image
            img = Image.fromarray(img, mode="L")
        except ImportError:
            pass
        if self.transform is not None: img = self.transform(img)
        if self.target_transform is not None: t = self.target_transform(t)
        return img, t

FashionMNIST = MNIST

class FakeData:
    def __init__(self, size=1000, image_size=(3, 224, 224), num_classes=10, transform=None, target_transform=None, random_offset=0):
        self.size, self.image_size, self.num_classes = size, image_size, num_classes
        self.transform = transform
    def __len__(self): return self.size
    def __getitem__(self, i):
        from PIL import Image
        r = np.random.default_rng(i)
        c, h, w = self.image_size
        a = r.integers(0, 256, size=(h, w, c), dtype=np.uint8)
        img = Image.fromarray(a if c == 3 else a[:, :, 0])
        if self.transform is not None: img = self.transform(img)
        return img, int(r.integers(0, self.num_classes))


class CIFAR10:
    """CIFAR-10-shaped data (32x32 RGB uint8, 10 classes): the digits upsampled to 32x32 and
    tinted per class, so a network can learn something from it."""
    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        x, y = _digits28(train)
        x = np.pad(x, ((0, 0), (2, 2), (2, 2)))
        tint = np.random.default_rng(0).integers(64, 256, size=(10, 3))
        self._x = (x[:, :, :, None].astype(np.int64) * tint[y][:, None, None, :] // 255
                   ).astype(np.uint8)
        self._y = y
        self.data, self.targets = self._x, list(map(int, y))
        self.transform, self.target_transform = transform, target_transform
    def __len__(self): return len(self._y)
    def __getitem__(self, i):
        from PIL import Image
        img, t = Image.fromarray(self._x[i]), int(self._y[i])
        if self.transform is not None: img = self.transform(img)
        if self.target_transform is not None: t = self.target_transform(t)
        return img, t
