"""Storing events as they come: every POST waits here until its event is committed.

POSTs that arrive while a commit is under way are committed together in the next transaction (one disk sync for
all of them); no POST is answered before the transaction holding its event has committed. The database is
touched only from this module's thread and the readers' (store.py's calls block; the event loop never waits on
the disk).
"""
import asyncio
from concurrent.futures import ThreadPoolExecutor

BATCH = 500  # events per transaction at most


class Writer:
    def __init__(self, store, on_commit):
        self.store, self.on_commit = store, on_commit
        self.queue = asyncio.Queue()
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="live-writer")
        self.task = None

    def start(self):
        self.task = asyncio.ensure_future(self._run())

    async def store_event(self, event):
        """The event's seq, once it is committed (a retried event_id: the seq it was stored with)."""
        done = asyncio.get_running_loop().create_future()
        await self.queue.put((event, done))
        return await done

    async def run_blocking(self, call, *args):
        """A write outside the events' flow (the course's end: delete_all), in the writer's thread."""
        return await asyncio.get_running_loop().run_in_executor(self.thread, call, *args)

    async def _run(self):
        loop = asyncio.get_running_loop()
        while True:
            batch = [await self.queue.get()]
            while not self.queue.empty() and len(batch) < BATCH:
                batch.append(self.queue.get_nowait())
            try:
                seqs = await loop.run_in_executor(self.thread, self.store.add_many, [e for e, _ in batch])
            except Exception as error:  # noqa: BLE001 - the database refused: each POST of the batch answers 503
                for _, done in batch:
                    if not done.done():
                        done.set_exception(error)
                continue
            for event, done in batch:
                if not done.done():
                    done.set_result(seqs[event["event_id"]])
            self.on_commit()
