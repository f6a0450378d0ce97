"""Wiring: the store, the services, the gRPC server (Arena, MatchHost, health, reflection),
the metrics endpoint and the lease reaper.

``build_server(settings)`` returns a *started* :class:`HamletServer` and its gRPC port;
pass ``grpc_port=0`` for a free port (tests). ``server.stop(grace)`` shuts everything down.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Sequence
from concurrent import futures
from dataclasses import dataclass
from wsgiref.simple_server import WSGIServer

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from prometheus_client import CollectorRegistry

import games
from hamlet.v1 import arena_pb2, arena_pb2_grpc, worker_pb2, worker_pb2_grpc
from server.auth import AuthInterceptor
from server.auth.interceptor import bearer
from server.auth.ratelimit import RateKind, RateLimiter
from server.boundary import BoundaryInterceptor, RefusalLog
from server.config import Settings
from server.files import secure_data_dir
from server.front import FrontConfig
from server.frontrun import FrontProcess, private_socket_dir
from server.interceptors import MetricsInterceptor
from server.leader import Lease
from server.leader import acquire as acquire_lease
from server.metrics import ServerMetrics, serve_metrics
from server.outage import OutageInterceptor, StorageOutage, is_outage, watch_engine
from server.pools import PoolInterceptor
from server.provisioned import Watcher
from server.remote_hosts import Resolver, system_resolver
from server.servicers.arena import ArenaServicer
from server.servicers.gate import StreamGate
from server.servicers.matchhost import MatchHostServicer
from server.servicers.replay_pages import ReplayPages
from server.services.accounts import AccountService
from server.services.bots import BotService
from server.services.dispatch import Dispatcher
from server.services.errors import UnavailableError
from server.services.feed import TournamentFeed
from server.services.headtohead import HeadToHeadService
from server.services.history import HistoryService
from server.services.invitations import InvitationService
from server.services.ladder import LadderService
from server.services.leaderboards import LeaderboardService
from server.services.matches import MatchService
from server.services.quotas import QuotaService
from server.services.refit import RefitService
from server.services.remote_bots import RemoteBotService
from server.services.scheduling import CeleryEnqueuer, Enqueuer
from server.services.tournaments import TournamentService
from server.storage import SqlStore, open_store

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 16 * 1024 * 1024
SERVICE_NAMES = (
    arena_pb2.DESCRIPTOR.services_by_name["Arena"].full_name,
    worker_pb2.DESCRIPTOR.services_by_name["MatchHost"].full_name,
)


@dataclass(frozen=True, slots=True)
class Services:
    """The domain services behind the servicers (also handy in tests)."""

    bots: BotService
    tournaments: TournamentService
    matches: MatchService
    accounts: AccountService


class _CountingEnqueuer:
    """Counts what goes on the queue; a send the broker refuses is logged and raised as
    UnavailableError (the matches are QUEUED in the database: the reaper re-sends them).
    A failed send changes the broker's epoch, so the reaper re-sends every queued match
    once the broker answers again."""

    def __init__(self, inner: Enqueuer, metrics: ServerMetrics) -> None:
        self.inner = inner
        self.metrics = metrics
        self._failures = 0

    def enqueue(self, match_ids: Sequence[str]) -> None:
        if not match_ids:
            return
        try:
            self.inner.enqueue(match_ids)
        except Exception as exc:
            self._failures += 1
            log.exception("could not enqueue %d matches", len(match_ids))
            raise UnavailableError(
                f"the queue's broker did not take {len(match_ids)} matches ({type(exc).__name__})"
            ) from None
        self.metrics.matches_enqueued.inc(len(match_ids))

    def queue_depth(self) -> int | None:
        return self.inner.queue_depth()

    def broker_epoch(self) -> str | None:
        epoch = self.inner.broker_epoch()
        return None if epoch is None else f"{epoch}.{self._failures}"


class HamletServer:
    """A running server: gRPC, metrics endpoint and reaper, stopped together."""

    def __init__(
        self,
        grpc_server: grpc.Server,
        store: SqlStore,
        services: Services,
        metrics: ServerMetrics,
        health_servicer: health.HealthServicer,
        settings: Settings,
    ) -> None:
        self.grpc_server = grpc_server
        self.store = store
        self.services = services
        self.metrics = metrics
        self.health = health_servicer
        self.settings = settings
        self.metrics_http: WSGIServer | None = None
        self.metrics_port: int | None = None
        self._stop = threading.Event()
        self._reaper = threading.Thread(target=self._reap_loop, name="hamlet-reaper", daemon=True)
        self._started = False
        #: The admin token made on this (first) start, to be shown once; None otherwise.
        self.new_admin_token: str | None = None
        self.ladder: LadderService | None = None
        #: The storage outage state its calls and reaper share (server.outage).
        self.outage: StorageOutage | None = None
        #: The quota checker (tests move its clock past midnight).
        self.quotas: QuotaService | None = None
        #: The leaderboards' background refits (stopped with the server).
        self.refits: RefitService | None = None
        #: The writer's lease on the database (server.leader), released by stop().
        self.lease: Lease | None = None
        #: The deployment's worker token file, re-read when it changes (server.provisioned).
        self.provisioned: Watcher | None = None
        #: The front process serving the public port (server.front), if any.
        self.front: FrontProcess | None = None
        #: The private socket behind a front (``unix:/...``): local workers connect here.
        self.private_address: str | None = None
        #: The workers' own port (HAMLET_WORKER_GRPC_PORT), if any.
        self.worker_port: int | None = None

    def start(self) -> None:
        """Start serving (idempotent)."""
        if self._started:
            return
        self._started = True
        self.grpc_server.start()
        if self.settings.metrics_port >= 0:
            self.metrics_http, self.metrics_port = serve_metrics(
                self.settings.metrics_port, self.settings.metrics_host, self.metrics.registry
            )
        self._reaper.start()

    def stop(self, grace: float | None = 5.0) -> None:
        """Refuse new calls, let running ones finish within ``grace`` seconds, stop the rest."""
        self._stop.set()
        if self.front is not None:
            self.front.stop()  # the public port first: no new calls come in
        self.health.enter_graceful_shutdown()
        self.grpc_server.stop(grace).wait()
        if self.refits is not None:
            self.refits.close()
        if self.metrics_http is not None:
            self.metrics_http.shutdown()
            self.metrics_http.server_close()
        self.store.close()
        if self.lease is not None:
            self.lease.release()

    def _lost_lease(self) -> None:
        """Another server took the database (this one lost its lease's session, in a
        database restart, say): stop writing. No more dispatch or reaping, and the health
        service says NOT_SERVING, so probes take this server out and a supervisor restarts
        it, when it will be refused at start while the other one runs."""
        log.critical(
            "lost the writer's lease on %s to another server: no longer dispatching; "
            "stop this server",
            self.lease.database if self.lease else "the database",
        )
        for name in (*SERVICE_NAMES, ""):
            self.health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)

    def wait_for_termination(self, timeout: float | None = None) -> bool:
        """Block until the gRPC server stops (True) or ``timeout`` passes (False)."""
        return bool(self.grpc_server.wait_for_termination(timeout))

    def _reap_loop(self) -> None:
        # A server that starts re-sends what is queued (it cannot know what the broker
        # holds); later, each change of the broker's epoch (a restart, a failed send) does.
        epoch: str | None = None
        with contextlib.suppress(Exception):
            epoch = self.services.matches.enqueuer.broker_epoch()
            if epoch is not None:
                self.services.matches.resend_queued()
        while not self._stop.wait(self.settings.reaper_interval_seconds):
            if self.lease is not None and self.lease.renew() is False:
                self._lost_lease()
                return
            try:
                if self.provisioned is not None:
                    self.provisioned.poll()  # a rotated secret takes effect without a restart
                matches = self.services.matches
                now_epoch = matches.enqueuer.broker_epoch()
                if now_epoch is not None and now_epoch != epoch:
                    resent = matches.resend_queued()
                    self.metrics.matches_requeued.labels("broker").inc(len(resent))
                    epoch = now_epoch
                reaped = matches.reap()
                self.metrics.matches_requeued.labels("lease").inc(len(reaped.requeued))
                self.metrics.matches_requeued.labels("timeout").inc(len(reaped.resent))
                self.services.tournaments.advance_all()
                if self.ladder is not None:
                    self.ladder.tick_all()
                self.services.tournaments.dispatcher.refill()
            except Exception as exc:  # the reaper must outlive a transient database error
                if self.outage is not None and is_outage(exc):
                    self.outage.refused(exc, call=False)  # logged once per outage
                    continue
                log.exception(
                    "lease reaper failed; retrying in %ss", self.settings.reaper_interval_seconds
                )


def _verified_worker(accounts: AccountService, details: grpc.HandlerCallDetails) -> bool:
    """Whether a call carries a worker token verified before (no key derivation here: this
    runs on gRPC's serving thread)."""
    try:
        token = bearer(details.invocation_metadata)
    except Exception:  # a malformed header: the interceptor refuses it on the shared pool
        return False
    return token is not None and accounts.verified_worker(token)


def build_server(
    settings: Settings,
    *,
    enqueuer: Enqueuer | None = None,
    registry: CollectorRegistry | None = None,
    resolver: Resolver = system_resolver,
) -> tuple[HamletServer, int]:
    """Build and start everything; returns the server and the gRPC port it listens on.

    ``resolver`` resolves remote bots' host names (tests give one that lies, like DNS can).
    A database another server holds raises :class:`server.leader.LeaseHeldError` before
    anything is migrated or written."""
    secure_data_dir(settings.data_dir, settings.effective_database_url)
    lease = acquire_lease(settings.effective_database_url)
    try:
        return _build(settings, lease, enqueuer, registry, resolver)
    except BaseException:
        lease.release()
        raise


def _build(
    settings: Settings,
    lease: Lease,
    enqueuer: Enqueuer | None,
    registry: CollectorRegistry | None,
    resolver: Resolver,
) -> tuple[HamletServer, int]:
    store = open_store(settings.effective_database_url)
    metrics = ServerMetrics(registry if registry is not None else CollectorRegistry())
    limiter = RateLimiter(
        settings.rate,
        settings.redis_url,
        on_refusal=lambda kind: metrics.rate_limited.labels(kind.value).inc(),
    )
    for kind in RateKind:
        metrics.rate_limited.labels(kind.value)
    queue = _CountingEnqueuer(
        enqueuer or CeleryEnqueuer(settings.redis_url, store.match_routes), metrics
    )
    metrics.watch_queue(queue.queue_depth)
    metrics.start_at_zero(games.names())
    metrics.watch_tournaments(
        lambda: {state.value: n for state, n in store.tournament_counts().items()}
    )
    store.time_statements(metrics.statement)
    feed = TournamentFeed(store)
    dispatcher = Dispatcher(store, queue, window=settings.dispatch_window)
    dispatcher.on_dispatch = lambda flow: metrics.blocks_dispatched.labels(flow).inc()
    quotas = QuotaService(store, settings.quotas)
    services = Services(
        bots=BotService(store, quotas),
        tournaments=TournamentService(
            store,
            queue,
            settings.default_decision_time_ms,
            feed=feed,
            rated_time_controls=settings.rated_time_control,
            dispatcher=dispatcher,
            quotas=quotas,
            max_match_seconds=settings.max_match_seconds,
        ),
        matches=MatchService(
            store,
            queue,
            lease_seconds=settings.match_lease_seconds,
            queue_timeout_seconds=settings.queue_timeout_seconds,
            max_attempts=settings.max_match_attempts,
            max_infra_retries=settings.max_infra_retries,
            feed=feed,
        ),
        accounts=AccountService(store, limiter=limiter),
    )
    ladder = LadderService(
        store,
        queue,
        settings.rated_time_control,
        on_block=lambda game: metrics.ladder_blocks.labels(game).inc(),
        dispatcher=dispatcher,
        quotas=quotas,
    )
    tests = HeadToHeadService(
        store,
        queue,
        settings.default_decision_time_ms,
        dispatcher=dispatcher,
        quotas=quotas,
        max_match_seconds=settings.max_match_seconds,
    )
    remote = RemoteBotService(
        store,
        settings.remote_bot_hosts,
        resolver,
        settings.remote_handshake_seconds,
        quotas=quotas,
        lookup_seconds=settings.remote_lookup_seconds,
        handshakes=settings.remote_handshakes,
    )

    refits = RefitService(
        store,
        debounce=settings.refit_seconds,
        processes=settings.effective_refit_process,
        on_fit=metrics.fitted,
        on_progress=metrics.fit_progress,
    )

    leaderboards = LeaderboardService(store, refits=refits)

    def on_final(tournament_id: str) -> None:
        refits.touch()  # a rated result may have arrived: the leaderboards poll the log
        services.tournaments.advance(tournament_id)
        ladder.after_result(tournament_id)
        tests.after_result(tournament_id)
        dispatcher.refill()  # a block may have ended: its place in the window is free

    services.matches.on_final = on_final
    services.matches.on_claimed = dispatcher.saw_worker
    services.matches.observers.append(
        lambda stage, seconds: metrics.queue_latency.labels(stage).observe(seconds)
    )
    new_admin_token = services.accounts.bootstrap(settings.data_dir)
    provisioned = None
    if settings.worker_token_file is not None:
        provisioned = Watcher(store, settings.worker_token_file)
        provisioned.poll()
    outage = StorageOutage()
    watch_engine(store.engine, outage)
    worker_pool = futures.ThreadPoolExecutor(
        max_workers=settings.worker_threads, thread_name_prefix="hamlet-matchhost"
    )
    server = grpc.server(
        futures.ThreadPoolExecutor(
            max_workers=settings.max_workers, thread_name_prefix="hamlet-grpc"
        ),
        # The pool first (its handler is the one grpc runs): it admits to the workers' pool
        # only calls with a worker token verified before, so a flood of wrong secrets runs
        # (throttled) on the shared pool; metrics next, so refused calls are counted with
        # their status code; the boundary next, so it logs every refusal, the
        # authentication's included; authentication last, on the pool chosen.
        interceptors=[
            PoolInterceptor(
                f"/{SERVICE_NAMES[1]}/",
                worker_pool,
                admit=lambda details: _verified_worker(services.accounts, details),
            ),
            MetricsInterceptor(metrics),
            BoundaryInterceptor(RefusalLog(settings.log_refusals, metrics.refusals_unlogged.inc)),
            OutageInterceptor(outage),  # a storage outage, authentication's included
            AuthInterceptor(services.accounts.authenticate, settings.public_reads, limiter),
        ],
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ("grpc.keepalive_permit_without_calls", 1),
            ("grpc.http2.min_recv_ping_interval_without_data_ms", 10_000),
        ],
    )
    arena_pb2_grpc.add_ArenaServicer_to_server(
        ArenaServicer(
            store,
            services.bots,
            services.tournaments,
            services.matches,
            services.accounts,
            leaderboards,
            HistoryService(store, anchored=leaderboards.anchored),
            ladder,
            tests,
            remote,
            StreamGate(
                settings.max_streams,
                settings.effective_anonymous_streams,
                settings.max_streams_per_client,
                settings.stream_idle_seconds,
            ),
            InvitationService(
                store, settings.invitation_pending_days, settings.invitation_grant_days
            ),
            quotas,
            replays=ReplayPages(settings.replay_cache_bytes),
        ),
        server,
    )
    worker_pb2_grpc.add_MatchHostServicer_to_server(
        MatchHostServicer(services.bots, services.matches, metrics, remote, dispatcher), server
    )
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in (*SERVICE_NAMES, ""):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        (*SERVICE_NAMES, reflection.SERVICE_NAME, health.SERVICE_NAME), server
    )
    credentials = None
    if settings.tls_cert is not None and settings.tls_key is not None:
        credentials = grpc.ssl_server_credentials(
            [(settings.tls_key.read_bytes(), settings.tls_cert.read_bytes())]
        )

    def listen(port: int) -> int:
        address = f"{settings.grpc_host}:{port}"
        if credentials is not None:
            bound = server.add_secure_port(address, credentials)
        else:
            bound = server.add_insecure_port(address)
        if bound == 0:
            store.close()
            raise OSError(f"cannot listen on {address}")
        return int(bound)

    front: FrontProcess | None = None
    private: str | None = None
    if settings.effective_front:
        # The public port is the front's; this server listens on a socket only its user
        # can reach (the front's backend, and local workers' way in).
        workdir = private_socket_dir()
        private = f"unix:{workdir / 'server.sock'}"
        server.add_insecure_port(private)
        front = FrontProcess(
            FrontConfig(
                listen=f"{settings.grpc_host}:{settings.grpc_port}",
                backend=private,
                public_reads=settings.public_reads,
                max_workers=settings.max_workers,
                tls_cert=settings.tls_cert,
                tls_key=settings.tls_key,
            ),
            workdir,
        )
        port = 0
    else:
        port = listen(settings.grpc_port)
    worker_port = listen(settings.worker_grpc_port) if settings.worker_grpc_port >= 0 else None
    hamlet = HamletServer(server, store, services, metrics, health_servicer, settings)
    hamlet.private_address = private
    hamlet.worker_port = worker_port
    hamlet.new_admin_token = new_admin_token
    hamlet.ladder = ladder
    hamlet.quotas = quotas
    hamlet.outage = outage
    hamlet.refits = refits
    refits.start()
    hamlet.lease = lease
    hamlet.provisioned = provisioned
    hamlet.start()
    if front is not None:
        try:
            port = front.start()
        except BaseException:
            hamlet.stop(grace=0)
            raise
        hamlet.front = front
        metrics.watch_front(front.refused)
    return hamlet, port
