package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/devserver"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/results"
)

// dial connects to a Temporal frontend as t says (address, namespace, TLS,
// API key).
func (a *app) dial(t config.TemporalConfig) (client.Client, error) {
	opts, err := a.clientOptions(t)
	if err != nil {
		return nil, err
	}
	return engine.Dial(t, opts)
}

// clientOptions are the options of every Temporal client the CLI makes:
// the SDK's logs on stderr at log.level, traced when telemetry is on.
func (a *app) clientOptions(t config.TemporalConfig) (client.Options, error) {
	return engine.ClientOptionsWith(t, a.logger(os.Stderr), a.tel != nil && a.tel.Tracer != nil)
}

// dialLogging is dial with the SDK's logs on w instead of stderr.
func (a *app) dialLogging(w io.Writer) func(config.TemporalConfig) (client.Client, error) {
	return func(t config.TemporalConfig) (client.Client, error) {
		opts, err := engine.ClientOptionsWith(t, a.logger(w), a.tel != nil && a.tel.Tracer != nil)
		if err != nil {
			return nil, err
		}
		return engine.Dial(t, opts)
	}
}

// logger writes this process's log lines to w (stderr) at log.level.
func (a *app) logger(w io.Writer) *slog.Logger { return a.cfg.Log.Logger(w) }

func (a *app) openEngine(ctx context.Context) (*engine.Engine, error) {
	return engine.Open(ctx, engine.Configured(a.cfg, false))
}

// openReader opens the engine for reading: a missing Qdrant collection is an error.
func (a *app) openReader(ctx context.Context) (*engine.Engine, error) {
	return engine.Open(ctx, engine.Configured(a.cfg, true))
}

// withLookup runs fn with the configured results store opened for reading,
// to look a run up before starting one; a data directory where nothing has
// run yet (no store in it) holds no run, and fn gets nil.
func (a *app) withLookup(ctx context.Context, fn func(results.Store) error) error {
	return engine.WithResults(ctx, engine.Configured(a.cfg, true), fn)
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
// interrupted.
func (a *app) runDev(cmd *cobra.Command, f devFlags) error {
	ctx, stop := interrupted()
	defer stop()
	d := engine.Dev{Worker: a.worker(cmd), NoWorker: !f.worker,
		Server: devserver.Options{DataDir: a.cfg.DataDir, Port: f.port, Ports: f.ports, Namespace: a.cfg.Temporal.Namespace}}
	return d.Run(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr())
}

// worker is the configured worker, logging on cmd's stderr.
func (a *app) worker(cmd *cobra.Command) engine.Worker {
	return engine.Worker{Stores: engine.Configured(a.cfg, false), Temporal: a.cfg.Temporal, Dial: a.dial, Log: a.logger(cmd.ErrOrStderr())}
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
			return a.worker(cmd).Run(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	backendFlag(cmd.Flags())
	return cmd
}

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
