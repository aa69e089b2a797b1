mkdir -p corpus
python - <<'PY'
import os, re, random
src = open(os.path.join(os.path.dirname(os.__file__), "argparse.py")).read()
words = re.findall(r"[A-Za-z]+", src)
lines = [" ".join(words[i:i + 12]) for i in range(0, len(words), 12)]
open("corpus/train.txt", "w").write("\n".join(lines[:250]) + "\n")
open("corpus/valid.txt", "w").write("\n".join(lines[250:280]) + "\n")
open("corpus/test.txt", "w").write("\n".join(lines[280:310]) + "\n")
PY
