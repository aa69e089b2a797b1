# karpathy/nanoGPT's train.py: a synthetic character corpus in its data layout (uint16 token ids
# in data/tiny/{train,val}.bin, vocab_size in meta.pkl), and configurator.py beside the work dir
# (train.py exec()s it from the current directory)
mkdir -p data/tiny
cp "$PORT_SCRIPTS/configurator.py" .
python - <<'PY'
import os, pickle, numpy as np
text = open(os.path.join(os.path.dirname(os.__file__), "argparse.py")).read()
chars = sorted(set(text))
ids = np.array([chars.index(c) for c in text], dtype=np.uint16)
n = int(0.9 * len(ids))
ids[:n].tofile("data/tiny/train.bin")
ids[n:].tofile("data/tiny/val.bin")
pickle.dump({"vocab_size": len(chars), "itos": dict(enumerate(chars)),
             "stoi": {c: i for i, c in enumerate(chars)}}, open("data/tiny/meta.pkl", "wb"))
PY
