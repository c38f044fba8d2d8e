package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/devserver"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/telemetry"
)

// dial connects to a Temporal frontend as t says (address, namespace, TLS,
// API key).
func (a *app) dial(t config.TemporalConfig) (client.Client, error) {
	opts, err := a.clientOptions(t)
	if err != nil {
		return nil, err
	}
	c, err := client.Dial(opts)
	if err != nil {
		if t.Source != "" {
			return nil, fmt.Errorf("connect to Temporal at %s (from %s, written by `clinevo dev`: is it still running? --address overrides): %w", t.Address, t.Source, err)
		}
		return nil, fmt.Errorf("connect to Temporal at %s: %w (is `clinevo dev` running? --address, CLINEVO_TEMPORAL_ADDRESS or temporal.address point elsewhere)", t.Address, err)
	}
	return c, nil
}

// clientOptions are the options of every Temporal client the CLI makes: the
// connection t describes, the SDK's logs (and so a worker's workflows' and
// activities': "stream started", "waiting for a dependency") on stderr at
// log.level, and the tracing interceptors when telemetry is on.
func (a *app) clientOptions(t config.TemporalConfig) (client.Options, error) {
	opts, err := engine.ClientOptions(t)
	if err != nil {
		return client.Options{}, err
	}
	opts.Logger = sdklog.NewStructuredLogger(a.logger(os.Stderr))
	if a.tel != nil && a.tel.Tracer != nil {
		if err := telemetry.ClientOptions(&opts); err != nil {
			return client.Options{}, err
		}
	}
	return opts, nil
}

// logger writes this process's log lines to w (stderr) at log.level.
func (a *app) logger(w io.Writer) *slog.Logger {
	level := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}[a.cfg.Log.Level]
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// embedded is the in-process server at address: plaintext on loopback, so the
// configured TLS and API key (meant for a remote cluster) do not apply.
func (a *app) embedded(address string) config.TemporalConfig {
	return config.TemporalConfig{Address: address, Namespace: a.cfg.Temporal.Namespace, TaskQueue: a.cfg.Temporal.TaskQueue}
}

func (a *app) openEngine(ctx context.Context) (*engine.Engine, error) {
	return engine.Open(ctx, a.engineOptions(a.cfg.DataDir, true, false))
}

// openReader opens the engine for reading: a missing Qdrant collection is an error.
func (a *app) openReader(ctx context.Context) (*engine.Engine, error) {
	return engine.Open(ctx, a.engineOptions(a.cfg.DataDir, true, true))
}

// withLookup runs fn with the configured results store opened for reading,
// to look a run up before starting one; a data directory where nothing has
// run yet (no store in it) holds no run, and fn gets nil.
func (a *app) withLookup(ctx context.Context, fn func(results.RunLog) error) error {
	store, err := engine.OpenResultsReader(ctx, a.engineOptions(a.cfg.DataDir, true, true))
	if errors.Is(err, engine.ErrNoData) {
		return fn(nil)
	}
	if err != nil {
		return err
	}
	defer store.Close()
	return fn(store)
}

// withLookupStore is withLookup with the whole store: fn is not called
// when nothing has run in the data directory yet.
func (a *app) withLookupStore(ctx context.Context, fn func(results.Store) error) error {
	store, err := engine.OpenResultsReader(ctx, a.engineOptions(a.cfg.DataDir, true, true))
	if errors.Is(err, engine.ErrNoData) {
		return nil
	}
	if err != nil {
		return err
	}
	defer store.Close()
	return fn(store)
}

// resultsAt says where results go (a DSN never holds the password).
func (a *app) resultsAt() string {
	if p := a.cfg.PostgresOptions(); p != nil {
		return "postgres " + p.String()
	}
	return filepath.Join(a.cfg.DataDir, "results.db")
}

// engineOptions are the configured stores under dir; sharedResults chooses
// the configured results backend (the demo keeps its own results.db).
func (a *app) engineOptions(dir string, sharedResults, readOnly bool) engine.Options {
	o := engine.Options{DataDir: dir, MemoryDim: a.cfg.Memory.Dim, Embeddings: a.cfg.Settings.Roles["embeddings"],
		Qdrant: a.cfg.QdrantOptions(), ReadOnly: readOnly, PromptText: a.cfg.Telemetry.PromptText}
	if sharedResults {
		o.Postgres = a.cfg.PostgresOptions()
	}
	return o
}

// runWorker runs a worker until ctx ends.
func (a *app) runWorker(ctx context.Context, c client.Client, eng *engine.Engine) error {
	w := eng.NewWorker(c, a.cfg.Temporal.TaskQueue)
	if err := w.Start(); err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	defer w.Stop()
	<-ctx.Done()
	return nil
}

func interrupted() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// devFlags are the flags of `dev`.
type devFlags struct {
	port   int
	ports  devserver.Ports
	worker bool
}

func (a *app) devCmd() *cobra.Command {
	var f devFlags
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run an embedded Temporal server (SQLite under the data dir) and a worker in one process",
		Long: "Run an embedded Temporal server (SQLite under the data dir) and a worker in one process.\n\n" +
			"The frontend's address goes to " + config.DevFile + " in the data dir while dev runs: every other command\n" +
			"on the same data dir (and without --address, CLINEVO_TEMPORAL_ADDRESS or temporal.address) talks to it.\n" +
			"The server's log is temporal.log in the data dir (docs/operations.md, \"The embedded server's log\").",
		Example: `  clinevo dev
  clinevo dev --port 22233 --http-port 22234   # then: clinevo stream start ... finds 127.0.0.1:22233
  clinevo --data-dir /tmp/lab dev --worker=false`,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runDev(cmd, f) },
	}
	cmd.Flags().IntVar(&f.port, "port", 7233, "frontend gRPC port on 127.0.0.1")
	cmd.Flags().IntVar(&f.ports.HTTP, "http-port", 0, "frontend HTTP API port (default: a free port)")
	cmd.Flags().IntVar(&f.ports.History, "history-port", 0, "history service gRPC port (default: a free port)")
	cmd.Flags().IntVar(&f.ports.Matching, "matching-port", 0, "matching service gRPC port (default: a free port)")
	cmd.Flags().IntVar(&f.ports.Worker, "system-worker-port", 0, "the server's system worker service gRPC port (default: a free port)")
	cmd.Flags().BoolVar(&f.worker, "worker", true, "also run a worker in this process")
	backendFlag(cmd.Flags())
	return cmd
}

// runDev runs the embedded server, and a worker unless asked not to, until
// interrupted; while it runs, its address is in the data dir's DevFile.
func (a *app) runDev(cmd *cobra.Command, f devFlags) error {
	ctx, stop := interrupted()
	defer stop()
	ns := a.cfg.Temporal.Namespace
	srv, err := devserver.Start(devserver.Options{DataDir: a.cfg.DataDir, Port: f.port, Ports: f.ports, Namespace: ns})
	if err != nil {
		return err
	}
	defer srv.Stop()
	if err := config.WriteDev(a.cfg.DataDir, config.DevEndpoint{Address: srv.Address(), Namespace: ns, PID: os.Getpid()}); err != nil {
		return err
	}
	defer func() {
		if err := config.RemoveDev(a.cfg.DataDir, srv.Address()); err != nil {
			fmt.Fprintln(cmd.ErrOrStderr(), "clinevo dev:", err)
		}
	}()
	out := cmd.OutOrStdout()
	a.writeDev(out, srv)
	c, err := a.dial(a.embedded(srv.Address()))
	if err != nil {
		return err
	}
	defer c.Close()
	// A data dir made by an older clinevo lacks the newer attributes.
	if err := devserver.AddMissingSearchAttributes(ctx, c, ns); err != nil {
		return err
	}
	if !f.worker {
		fmt.Fprintln(out, "worker             not started (--worker=false)")
		<-ctx.Done()
		return nil
	}
	eng, err := a.openEngine(ctx)
	if err != nil {
		return err
	}
	defer eng.Close()
	fmt.Fprintf(out, "worker             task queue %s\n", a.cfg.Temporal.TaskQueue)
	return a.runWorker(ctx, c, eng)
}

// writeDev says where the embedded server and its files are.
func (a *app) writeDev(out io.Writer, srv *devserver.Server) {
	p := srv.Ports()
	fmt.Fprintf(out, "Temporal frontend  %s (namespace %s)\n", srv.Address(), a.cfg.Temporal.Namespace)
	fmt.Fprintf(out, "other ports        http %d, history %d, matching %d, system worker %d (on 127.0.0.1)\n", p.HTTP, p.History, p.Matching, p.Worker)
	fmt.Fprintf(out, "address file       %s (read by every clinevo command on this data dir)\n", filepath.Join(a.cfg.DataDir, config.DevFile))
	fmt.Fprintf(out, "data directory     %s\n", a.cfg.DataDir)
	fmt.Fprintf(out, "server log         %s\n", filepath.Join(a.cfg.DataDir, "temporal.log"))
	fmt.Fprintf(out, "results            %s\n", a.resultsAt())
	fmt.Fprintf(out, "temporal CLI       temporal --address %s workflow list (or: clinevo episode list --run RUN)\n", srv.Address())
}

func (a *app) workerCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run a worker against an existing Temporal frontend",
		Example: `  clinevo worker --address temporal.internal:7233 --namespace clinevo
  CLINEVO_TEMPORAL_ADDRESS=127.0.0.1:7233 clinevo worker --memory-backend qdrant`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := interrupted()
			defer stop()
			c, err := a.dialPatiently(ctx, cmd)
			if err != nil {
				return err
			}
			defer c.Close()
			// Workflows that set a search attribute the namespace lacks fail
			// their tasks until it is added: refuse to start instead.
			missing, err := devserver.MissingSearchAttributes(ctx, c, a.cfg.Temporal.Namespace)
			if err != nil {
				return err
			}
			if len(missing) > 0 {
				return errors.New(devserver.MissingHelp(a.cfg.Temporal.Namespace, missing))
			}
			eng, err := a.openEngine(ctx)
			if err != nil {
				return err
			}
			defer eng.Close()
			fmt.Fprintf(cmd.OutOrStdout(), "worker on %s (namespace %s), task queue %s, data %s, results %s\n", a.cfg.Temporal.Address,
				a.cfg.Temporal.Namespace, a.cfg.Temporal.TaskQueue, a.cfg.DataDir, a.resultsAt())
			return a.runWorker(ctx, c, eng)
		},
	}
	backendFlag(cmd.Flags())
	return cmd
}

// dialPatiently waits for the frontend to come up (a worker may start before
// its server), retrying every waitPoll until ctx ends or a minute has passed.
func (a *app) dialPatiently(ctx context.Context, cmd *cobra.Command) (client.Client, error) {
	deadline := time.Now().Add(time.Minute)
	for noted := false; ; noted = true {
		c, err := a.dial(a.cfg.Temporal)
		if err == nil || time.Now().After(deadline) {
			return c, err
		}
		if !noted {
			fmt.Fprintln(cmd.ErrOrStderr(), "waiting for the Temporal frontend:", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(waitPoll):
		}
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// waitPoll is how often commands that wait on a workflow poll its state.
const waitPoll = 500 * time.Millisecond

// withEngine runs a command with the engine open (read-only: the stores
// opened for reading, which creates no data directory, file or Qdrant
// collection and writes nothing).
func (a *app) withEngine(readOnly bool, fn func(*cobra.Command, []string, *engine.Engine) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		open := a.openEngine
		if readOnly {
			open = a.openReader
		}
		eng, err := open(cmd.Context())
		if err != nil {
			return err
		}
		defer eng.Close()
		return fn(cmd, args, eng)
	}
}

// withClient runs a command with a client of the configured Temporal frontend.
func (a *app) withClient(fn func(*cobra.Command, []string, client.Client) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		c, err := a.dial(a.cfg.Temporal)
		if err != nil {
			return err
		}
		defer c.Close()
		return fn(cmd, args, c)
	}
}
