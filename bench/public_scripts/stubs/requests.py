"""Offline requests.get stand-in: any URL ending in cora.tgz gets a small synthetic Cora archive
(same file layout and formats: cora/cora.content, cora/cora.cites)."""
import io, tarfile
import numpy as np

def _cora(n=1700, d=40, e=5000, seed=0):
    r = np.random.default_rng(seed)
    ids = r.choice(10 ** 6, size=n, replace=False)
    labels = ["Case_Based", "Genetic_Algorithms", "Neural_Networks", "Probabilistic_Methods",
              "Reinforcement_Learning", "Rule_Learning", "Theory"]
    feats = (r.random((n, d)) < 0.1).astype(int)
    content = "\n".join(f"{i}\t" + "\t".join(map(str, f)) + f"\t{labels[r.integers(7)]}"
                        for i, f in zip(ids, feats)) + "\n"
    a, b = r.integers(0, n, e), r.integers(0, n, e)
    cites = "\n".join(f"{ids[x]}\t{ids[y]}" for x, y in zip(a, b) if x != y) + "\n"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for name, txt in (("cora/cora.content", content), ("cora/cora.cites", cites)):
            data = txt.encode()
            info = tarfile.TarInfo(name); info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    buf.seek(0)
    return buf

class _Resp:
    def __init__(self, raw): self.raw = raw
    def __enter__(self): return self
    def __exit__(self, *a): return False

def get(url, stream=False, **kw):
    if url.endswith("cora.tgz"):
        return _Resp(_cora())
    raise ConnectionError(f"offline: {url}")
