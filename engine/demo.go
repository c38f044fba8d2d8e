package engine

import (
	"context"
	"fmt"
	"io"
	"strings"

	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/devserver"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/internal/freeport"
	"github.com/clinevo/clinevo/progress"
	"github.com/clinevo/clinevo/recorded"
	"github.com/clinevo/clinevo/settings"
)

// Demo is what `clinevo demo` runs: the quick experiment on an embedded
// server and a worker of its own, in a data directory of its own.
type Demo struct {
	// Worker's stores are the demo's: its results stay in its own directory
	// whatever results.backend says, since every demo is a fresh experiment
	// of one name. Its Temporal gives the namespace and task queue.
	Worker
	Settings settings.Settings // the base of the quick spec's conditions
	// Resize plays Limit cases in stages of StageSize instead of the quick
	// spec's own.
	Resize           bool
	Limit, StageSize int
}

// Run plays the demo to its end: its progress goes to errOut; out gets
// where it runs, then the stage table, the report's summary and where
// everything is (recorded.WriteDemo).
func (d Demo) Run(ctx context.Context, out, errOut io.Writer) error {
	dir := d.Stores.DataDir
	port, err := freeport.Port("127.0.0.1")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "clinevo demo: embedded Temporal, built-in roles, no network\ndata: %s\n", dir)
	srv, err := devserver.Start(devserver.Options{DataDir: dir, Port: port})
	if err != nil {
		return err
	}
	defer srv.Stop()
	c, err := d.Dial(Embedded(srv.Address(), d.Temporal))
	if err != nil {
		return err
	}
	defer c.Close()
	eng, err := Open(ctx, d.Stores)
	if err != nil {
		return err
	}
	defer eng.Close()
	w := eng.NewWorker(c, d.Temporal.TaskQueue)
	if err := w.Start(); err != nil {
		return err
	}
	defer w.Stop()
	return d.play(ctx, c, eng, srv.Address(), out, errOut)
}

// play starts the quick experiment (in the demo's size), follows it to its
// end and writes what came of it.
func (d Demo) play(ctx context.Context, c client.Client, eng *Engine, address string, out, errOut io.Writer) error {
	spec, err := experiments.Parse("quick.yaml", experiments.Quick, d.Settings, eng.Benchmarks)
	if err != nil {
		return err
	}
	if d.Resize {
		spec.Limit, spec.StageSize = d.Limit, d.StageSize
	}
	r, err := StartExperiment(ctx, c, eng.Results, d.Temporal.TaskQueue, spec)
	if err != nil {
		return err
	}
	names := make([]string, len(spec.Conditions))
	for i, cd := range spec.Conditions {
		names[i] = cd.Name
	}
	fmt.Fprintf(out, "temporal frontend %s; experiment %s started: %s\n", address, spec.Name, strings.Join(names, ", "))
	if err := progress.Follow(ctx, errOut, r, progress.ExperimentRows(c, spec.Name)); err != nil {
		return err
	}
	return recorded.WriteDemo(ctx, out, eng.Results, eng.Benchmarks, spec, d.Stores.DataDir)
}
