"""The events, in a database: SQLite in the hub's folder by default, any SQLAlchemy URL (PostgreSQL for several
hub nodes) given by TRANSFORMER_LIVE_DB.

Every call here blocks: the service makes them from its worker threads (writer.py), never from the event loop.
Each event has the learner's event_id (unique: a retried POST is stored once) and a sequence number given by the
database (`seq`, increasing, never reused: the SSE stream's `id:`, so that a client that reconnects with
Last-Event-ID gets exactly what it has not seen).
"""
import time

from sqlalchemy import (
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    create_engine,
    delete,
    event,
    func,
    insert,
    select,
)
from sqlalchemy.exc import IntegrityError

FIELDS = ("event_id", "student", "notebook", "unit", "outcome", "level", "lang", "time", "received")

metadata = MetaData()
events = Table(
    "live_events", metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("event_id", String(32), nullable=False, unique=True),
    Column("student", String(255), nullable=False),  # the hub's name for the token's owner, never the body's
    Column("notebook", String(64), nullable=True),
    Column("unit", String(64), nullable=False),
    Column("outcome", String(64), nullable=False),
    Column("level", String(16), nullable=False),
    Column("lang", String(8), nullable=False),
    Column("time", Float, nullable=False),  # the learner's clock: shown, never trusted for ordering
    Column("received", Float, nullable=False, index=True),  # the service's clock: sessions and "stuck" use it
    sqlite_autoincrement=True,  # SQLite: a deleted row's seq is never given again
)


def _sqlite_pragmas(connection, _record):
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")  # readers (the stream) do not wait for the writer
    cursor.execute("PRAGMA synchronous=FULL")  # a commit is on disk before the POST is answered
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


class Store:
    def __init__(self, url):
        sqlite = url.startswith("sqlite")
        self.engine = create_engine(url, connect_args={"check_same_thread": False} if sqlite else {},
                                    pool_pre_ping=not sqlite)
        if sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
        metadata.create_all(self.engine)

    def add_many(self, batch, received=None):
        """Store each event of ``batch`` (dicts of FIELDS but `received`) in one transaction, committed on return.
        Returns {event_id: seq}, for new events and for those stored before (a retry)."""
        received = time.time() if received is None else received
        for attempt in range(3):
            try:
                return self._add_many(batch, received)
            except IntegrityError:  # another hub node stored one of these event_ids meanwhile: read it back
                if attempt == 2:
                    raise

    def _add_many(self, batch, received):
        wanted = list(dict.fromkeys(e["event_id"] for e in batch))
        with self.engine.begin() as conn:
            found = dict(conn.execute(select(events.c.event_id, events.c.seq)
                                      .where(events.c.event_id.in_(wanted))).all())
            for e in batch:
                if e["event_id"] not in found:
                    row = {**{k: e[k] for k in FIELDS if k != "received"}, "received": received}
                    found[e["event_id"]] = conn.execute(insert(events).values(**row)).inserted_primary_key[0]
        return found

    def rows(self, after_seq=0, since=None, limit=None):
        """Events with seq > after_seq (and received at or after `since`), in seq order, as dicts with `seq`."""
        query = select(events).where(events.c.seq > after_seq).order_by(events.c.seq)
        if since is not None:
            query = query.where(events.c.received >= since)
        if limit:
            query = query.limit(limit)
        with self.engine.connect() as conn:
            return [dict(row._mapping) for row in conn.execute(query)]

    def last_seq(self):
        with self.engine.connect() as conn:
            return conn.execute(select(func.max(events.c.seq))).scalar() or 0

    def count(self):
        with self.engine.connect() as conn:
            return conn.execute(select(func.count()).select_from(events)).scalar()

    def delete_all(self):
        """The course is over: every event goes. Returns how many there were."""
        with self.engine.begin() as conn:
            return conn.execute(delete(events)).rowcount

    def close(self):
        self.engine.dispose()
