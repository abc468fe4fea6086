import os

# One BLAS thread, set before numpy loads: the known-problem match is one small matrix-vector
# product per prompt, which a pool of BLAS threads only slows down on a busy machine.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from services.kg.server import main

main()
