"""Run a command as if on a CPU of another family: the same code, different float rounding.

    python -m tests.perturbed COMMAND [ARG ...]

Outputs that nbval compares must not depend on the CPU, the thread count or the BLAS build;
training, for one, rounds differently on every CPU family. This machine can imitate another
one: ATen's portable kernels instead of its AVX2/AVX-512 ones (other reduction orders in
sums, softmax and norms), MKL's "compatible" code path for matrix products, one thread.
`make test` runs nbval on the solution notebooks a second time under this environment, so a
machine-dependent output fails here too, not only on the next machine.
"""
import os
import sys

PERTURBED_ENV = {
    "ATEN_CPU_CAPABILITY": "default",
    "MKL_CBWR": "COMPATIBLE",
    "OMP_NUM_THREADS": "1",
}


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    os.environ.update(PERTURBED_ENV)
    print("under " + " ".join(f"{k}={v}" for k, v in PERTURBED_ENV.items()), flush=True)
    os.execvp(argv[0], argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
