import numpy as np
from . import LIB
try:
    from PIL import Image
except ImportError:
    Image = None

class Compose:
    def __init__(self, ts): self.ts = ts
    def __call__(self, x):
        for t in self.ts: x = t(x)
        return x

class ToTensor:
    def __call__(self, pic):
        if Image is not None and isinstance(pic, Image.Image):
            a = np.asarray(pic)
        else:
            a = np.asarray(pic)
        if a.ndim == 2:
            a = a[:, :, None]
        a = a.transpose(2, 0, 1).astype(np.float32) / 255.0
        return LIB.tensor(np.ascontiguousarray(a))

class Normalize:
    def __init__(self, mean, std): self.mean, self.std = mean, std
    def __call__(self, t):
        m = LIB.tensor(np.asarray(self.mean, np.float32)).view(-1, 1, 1)
        s = LIB.tensor(np.asarray(self.std, np.float32)).view(-1, 1, 1)
        return (t - m) / s

class Lambda:
    def __init__(self, f): self.f = f
    def __call__(self, x): return self.f(x)

class Resize:
    def __init__(self, size): self.size = size
    def __call__(self, img):
        s = self.size
        if isinstance(s, int):
            w, h = img.size
            if w <= h: s = (s, int(s * h / w))
            else: s = (int(s * w / h), s)
        else:
            s = (s[1], s[0])
        return img.resize(s, Image.BICUBIC)

class CenterCrop:
    def __init__(self, size): self.size = (size, size) if isinstance(size, int) else tuple(size)
    def __call__(self, img):
        w, h = img.size; th, tw = self.size
        l, t = int(round((w - tw) / 2.0)), int(round((h - th) / 2.0))
        return img.crop((l, t, l + tw, t + th))


class Pad:
    def __init__(self, padding, fill=0): self.padding, self.fill = padding, fill
    def __call__(self, img):
        p = self.padding
        a = np.asarray(img)
        pads = ((p, p), (p, p)) + (((0, 0),) if a.ndim == 3 else ())
        return Image.fromarray(np.pad(a, pads, constant_values=self.fill))


class RandomHorizontalFlip:
    def __init__(self, p=0.5): self.p = p
    def __call__(self, img):
        import random
        return img.transpose(Image.FLIP_LEFT_RIGHT) if random.random() < self.p else img


class RandomCrop:
    def __init__(self, size): self.size = (size, size) if isinstance(size, int) else tuple(size)
    def __call__(self, img):
        import random
        w, h = img.size; th, tw = self.size
        i, j = random.randint(0, h - th), random.randint(0, w - tw)
        return img.crop((j, i, j + tw, i + th))
