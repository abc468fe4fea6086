import os

# One BLAS thread: set before numpy loads (see api.composition.limit_blas_threads).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from services.memory.api.server import main

main()
