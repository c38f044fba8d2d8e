package engine

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/corpus"
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
	// Logs, when set, gives the Dial of a client whose log lines (the SDK's,
	// the worker's, its workflows' and activities': a stream's role settings
	// at every stage) go to w. Run gives it the data directory's LogFile, so
	// that a terminal shows the progress redrawn in place and the summary,
	// not a hundred log lines between copies of the progress.
	Logs func(w io.Writer) func(config.TemporalConfig) (client.Client, error)
}

// LogFile is the demo's own log in its data directory, beside the embedded
// server's temporal.log.
const LogFile = "clinevo.log"

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
	dial, closeLog, err := d.dialer(dir, out)
	if err != nil {
		return err
	}
	defer closeLog()
	c, err := dial(Embedded(srv.Address(), d.Temporal))
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

// warnNoRepeat warns on out when no clinical condition comes back within the
// first limit cases of the stream corpus ref: E1's memory then never meets a
// condition it wrote about, the summary's "seen before" is n=0 for every
// stream, and E1 cannot show a gain (analysis.Encounters splits by the same
// condition key). A corpus that does not load is left to the experiment's
// start to report.
func warnNoRepeat(out io.Writer, set bench.Set, ref string, limit int) {
	c, err := corpus.NewLibrary(set).Load(ref)
	if err != nil {
		return
	}
	seen := map[string]bool{}
	for _, cs := range c.Cases[:min(limit, len(c.Cases))] {
		if cs.Condition != "" && seen[cs.Condition] {
			return
		}
		seen[cs.Condition] = true
	}
	fmt.Fprintf(out, "warning: no clinical condition comes back within the first %d cases of %s, so E1's memory never meets "+
		"a condition it wrote about (\"seen before n=0\"); play more cases (--cases) to see it learn\n", limit, ref)
}

// dialer is the Dial of the demo's client: with Logs, one that logs to
// LogFile in dir (appended: a demo run again in one directory keeps the first
// run's lines), which out names.
func (d Demo) dialer(dir string, out io.Writer) (func(config.TemporalConfig) (client.Client, error), func(), error) {
	if d.Logs == nil {
		return d.Dial, func() {}, nil
	}
	path := filepath.Join(dir, LogFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("demo: open its log: %w", err)
	}
	fmt.Fprintf(out, "log:  %s (the worker's lines)\n", path)
	return d.Logs(f), func() { _ = f.Close() }, nil
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
		warnNoRepeat(out, eng.Benchmarks, spec.Corpus, spec.Limit)
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
