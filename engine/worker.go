package engine

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/devserver"
)

// Worker is what `clinevo worker` runs: a worker of the stores on the
// Temporal frontend the configuration names. `clinevo dev` and `clinevo
// demo` run one on their embedded server.
type Worker struct {
	Stores   Options               // Configured
	Temporal config.TemporalConfig // the frontend, its namespace and the task queue
	// Dial dials a frontend with the caller's client options (its logger,
	// its tracing): Temporal's, or the embedded one (Embedded).
	Dial func(config.TemporalConfig) (client.Client, error)
	Log  *slog.Logger // the worker's own lines (RunWorker)
}

// Run waits for the frontend (a worker may start before its server: a
// minute, polled every half second, clinevo's choice), refuses a namespace
// that lacks clinevo's search attributes (its workflows' tasks would fail
// until they are added), then runs the worker until ctx ends. out says what
// it runs on; note that it waits for the frontend.
func (w Worker) Run(ctx context.Context, out, note io.Writer) error {
	c, err := DialPatiently(ctx, func() (client.Client, error) { return w.Dial(w.Temporal) }, note, time.Minute, 500*time.Millisecond)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := devserver.CheckSearchAttributes(ctx, c, w.Temporal.Namespace); err != nil {
		return err
	}
	eng, err := Open(ctx, w.Stores)
	if err != nil {
		return err
	}
	defer eng.Close()
	fmt.Fprintf(out, "worker on %s (namespace %s), task queue %s, data %s, results %s\n", w.Temporal.Address,
		w.Temporal.Namespace, w.Temporal.TaskQueue, w.Stores.DataDir, w.Stores.ResultsAt())
	return eng.RunWorker(ctx, c, w.Temporal.TaskQueue, w.Log)
}

// RunWorker runs a worker on taskQueue until ctx ends, then stops it,
// waiting up to StopTimeout for the activities it is running so that a call
// in flight is recorded, not paid for again; log says that it waits and how
// long it waited.
func (e *Engine) RunWorker(ctx context.Context, c client.Client, taskQueue string, log *slog.Logger) error {
	e.WorkerStopTimeout = StopTimeout
	w := e.NewWorker(c, taskQueue)
	if err := w.Start(); err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	<-ctx.Done()
	log.Info("worker stopping: waiting for its running activities to return", "timeout", StopTimeout)
	start := time.Now()
	w.Stop()
	log.Info("worker stopped", "waited", time.Since(start).Round(time.Millisecond))
	return nil
}
