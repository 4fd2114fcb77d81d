"""The committed events, to every open stream: read back from the database in seq order.

Woken by each commit of this service (writer.py) and every POLL seconds otherwise, so that events stored by
another hub node sharing the database (PostgreSQL) reach this node's instructors too.
"""
import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor

POLL = 1.0  # seconds
READ = 2000  # rows per read


class Feed:
    def __init__(self, store):
        self.store = store
        self.readers = ThreadPoolExecutor(max_workers=2, thread_name_prefix="live-reader")
        self.subscribers = set()  # asyncio.Queue each: one per open stream
        self.last_seq = 0
        self.woken = asyncio.Event()
        self.task = None

    async def read(self, call, *args):
        """A read of the store in a reader thread."""
        return await asyncio.get_running_loop().run_in_executor(self.readers, call, *args)

    async def start(self):
        self.last_seq = await self.read(self.store.last_seq)
        self.task = asyncio.ensure_future(self._run())

    def wake(self):
        self.woken.set()

    def subscribe(self):
        queue = asyncio.Queue()
        self.subscribers.add(queue)
        return queue

    def unsubscribe(self, queue):
        self.subscribers.discard(queue)

    async def _run(self):
        while True:
            try:
                async with asyncio.timeout(POLL):  # not wait_for: in 3.11 it can swallow a cancellation (the stop)
                    await self.woken.wait()
            except TimeoutError:
                pass
            self.woken.clear()
            try:
                await self._publish()
            except Exception:  # the database is away for a moment: the next wake or poll tries again
                logging.getLogger("class-live").exception("reading new events failed")

    async def _publish(self):
        while True:
            rows = await self.read(self.store.rows, self.last_seq, None, READ)
            if not rows:
                break
            self.last_seq = rows[-1]["seq"]
            for queue in list(self.subscribers):
                queue.put_nowait(rows)
            if len(rows) < READ:
                break
