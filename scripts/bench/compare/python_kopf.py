"""
Python Kopf's controller in the comparison (`scripts/bench/compare.ts`), doing what
`compare/kopf.ts` does with this framework: an operator, standalone and cluster-wide, with
one create handler that returns when it started (so Kopf writes it to
`status.createFn.started`, in ms since the epoch like the others' clocks), no Events posted,
Kopf's default storages (its progress and the `last-handled-configuration` diff-base in
annotations; with `KOPF_BENCH_COMPARE_STORAGE=status`, both in the status). Kopf has no
batching window any more (`settings.batching.batch_window` is deprecated and affects
nothing): each object's first event is handled at once.

    python3 scripts/bench/compare/python_kopf.py <server-url> [<kubeconfig>]
    python3 scripts/bench/compare/python_kopf.py --probe    # prints Kopf's version, or fails

Kopf comes from wherever `import kopf` finds it: an installed package, or a source checkout
on PYTHONPATH (its dependencies installed). A source checkout lacks the version module that
packaging generates; a stand-in for it is made here, so that Kopf runs unchanged.

It prints nothing when ready: Kopf has no hook after its initial listing, so the harness
tells it from the cluster's request log (the WATCH of the objects). Runs until SIGTERM.
"""
import asyncio
import importlib.util
import os
import sys
import time
import types

VERSIONS = "kopf._cogs.helpers.versions"


def import_kopf() -> types.ModuleType:
    spec = importlib.util.find_spec("kopf")
    if spec is None or spec.origin is None:
        raise ImportError("No module named 'kopf'")
    package = os.path.dirname(spec.origin)
    if not os.path.exists(os.path.join(package, "_cogs", "helpers", "versions.py")):
        # What setuptools-scm writes when Kopf is packaged; a source tree has none.
        stand_in = types.ModuleType(VERSIONS)
        stand_in.__version__ = stand_in.version = "0+source"
        stand_in.__version_tuple__ = stand_in.version_tuple = (0, "source")
        stand_in.__commit_id__ = stand_in.commit_id = None
        sys.modules[VERSIONS] = stand_in
    import kopf
    return kopf


def now() -> float:
    """Milliseconds since the epoch, as the harness's `now()` (support/process.ts)."""
    return time.time() * 1000


def main() -> None:
    try:
        kopf = import_kopf()
    except ImportError as error:
        sys.exit(f"Python Kopf cannot be imported: {error}")
    if "--probe" in sys.argv:
        print(f"{kopf.__version__} {os.path.dirname(kopf.__file__)}")
        return
    import aiohttp  # a dependency of Kopf, so there once Kopf is

    server = sys.argv[1]
    registry = kopf.OperatorRegistry()

    # The session Kopf makes from a ConnectionInfo without credentials (its `auth.py`), built
    # here because Kopf passes `proxy=` to it, which Debian 12's aiohttp 3.8 does not take.
    @kopf.on.login(registry=registry, id="bench-login")
    async def login(**_):
        session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        return kopf.AiohttpSession(aiohttp_session=session, server=server)

    # Async: a sync handler would run in a thread of Kopf's executor, which costs more.
    @kopf.on.create("kopfexamples.kopf.dev", registry=registry, id="createFn")
    async def createFn(**_):
        return {"started": now()}

    kopf.configure(quiet=True)
    settings = kopf.OperatorSettings()
    settings.posting.enabled = False
    if os.environ.get("KOPF_BENCH_COMPARE_STORAGE") == "status":
        settings.persistence.progress_storage = kopf.StatusProgressStorage()
        settings.persistence.diffbase_storage = kopf.StatusDiffBaseStorage()
    asyncio.run(kopf.operator(
        registry=registry,
        settings=settings,
        clusterwide=True,
        standalone=True,
    ))


if __name__ == "__main__":
    main()
