package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/devserver"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/progress"
	"github.com/clinevo/clinevo/recorded"
	"github.com/clinevo/clinevo/results"
)

// demoFlags are the flags of `demo`.
type demoFlags struct {
	cases, stageSize int
	dir              string
}

func (a *app) demoCmd() *cobra.Command {
	var f demoFlags
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the quick experiment on embedded defaults: E0, E1, E2 over a 100-case stream in 4 stages, H0/H3 held-out, BWT; print the summary and write the report",
		RunE:  func(cmd *cobra.Command, _ []string) error { return a.runDemo(cmd, f) },
	}
	cmd.Flags().IntVar(&f.cases, "cases", 100, "episodes per stream condition")
	cmd.Flags().IntVar(&f.stageSize, "stage-size", 25, "episodes per stage")
	cmd.Flags().StringVar(&f.dir, "dir", "", "data directory of this demo (default: a new folder under <data_dir>/demo)")
	return cmd
}

// runDemo runs the quick experiment on an embedded server and worker of its
// own, in a data directory of its own, and prints what came of it.
func (a *app) runDemo(cmd *cobra.Command, f demoFlags) error {
	ctx, out := cmd.Context(), cmd.OutOrStdout()
	dir := f.dir
	if dir == "" {
		dir = filepath.Join(a.cfg.DataDir, "demo", time.Now().UTC().Format("20060102-150405"))
	}
	port, err := freeLoopbackPort()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "clinevo demo: embedded Temporal, built-in roles, no network\ndata: %s\n", dir)
	srv, err := devserver.Start(devserver.Options{DataDir: dir, Port: port})
	if err != nil {
		return err
	}
	defer srv.Stop()
	c, err := a.dial(a.embedded(srv.Address()))
	if err != nil {
		return err
	}
	defer c.Close()
	// The demo keeps its results in its own directory whatever
	// results.backend says: every demo is a fresh experiment of one name.
	eng, err := engine.Open(ctx, a.engineOptions(dir, false, false))
	if err != nil {
		return err
	}
	defer eng.Close()
	w := eng.NewWorker(c, a.cfg.Temporal.TaskQueue)
	if err := w.Start(); err != nil {
		return err
	}
	defer w.Stop()
	return a.playDemo(cmd, c, eng.Results, srv.Address(), f, dir)
}

// playDemo starts the quick experiment (with the demo's size), follows it
// to its end and prints what came of it.
func (a *app) playDemo(cmd *cobra.Command, c client.Client, store results.Store, address string, f demoFlags, dir string) error {
	ctx, out := cmd.Context(), cmd.OutOrStdout()
	spec, err := experiments.Parse("quick.yaml", experiments.Quick, a.cfg.Settings, a.set)
	if err != nil {
		return err
	}
	if f.cases != 100 || f.stageSize != 25 {
		spec.Limit, spec.StageSize = f.cases, f.stageSize
	}
	r, err := engine.StartExperiment(ctx, c, store, a.cfg.Temporal.TaskQueue, spec)
	if err != nil {
		return err
	}
	names := make([]string, len(spec.Conditions))
	for i, cd := range spec.Conditions {
		names[i] = cd.Name
	}
	fmt.Fprintf(out, "temporal frontend %s; experiment %s started: %s\n", address, spec.Name, strings.Join(names, ", "))
	if err := progress.Follow(ctx, cmd.ErrOrStderr(), r, progress.ExperimentRows(c, spec.Name)); err != nil {
		return err
	}
	return writeDemo(ctx, out, store, a.set, spec, dir)
}

// writeDemo prints the demo's stream conditions' stage table and its
// report's summary, writes the report, and says where everything is.
func writeDemo(ctx context.Context, out io.Writer, store results.Store, set bench.Set, spec contract.ExperimentSpec, dir string) error {
	recs, err := store.Records(ctx, "")
	if err != nil {
		return err
	}
	streams, labels := recorded.StreamRecords(spec, recs)
	fmt.Fprintln(out)
	if err := analysis.WriteStageTable(out, analysis.StageMeans(streams), labels); err != nil {
		return err
	}
	reportDir := filepath.Join(dir, "report")
	rep, err := recorded.ExperimentReport(ctx, store, set, spec.Name, reportDir)
	if err != nil {
		return err
	}
	fmt.Fprintln(out)
	analysis.WriteSummary(out, rep)
	fmt.Fprintf(out, "\nreport:  %s\n", filepath.Join(reportDir, "index.html"))
	fmt.Fprintf(out, "results: %s (results.db, memory.db, temporal.db; the server's log: temporal.log)\n", dir)
	fmt.Fprintf(out, "inspect: clinevo --data-dir %s runs list | runs stages | memory stats\n", dir)
	if len(streams) > 0 { // a spec without a stream condition has no episode to point at
		fmt.Fprintf(out, "         clinevo --data-dir %s episode show %s\n", dir, contract.EpisodeWorkflowID(spec.RunID("E1"), 1, 1, 1, streams[0].CaseID))
	}
	return nil
}

func freeLoopbackPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
