package main

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/devserver"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/experiments"
	"github.com/clinevo/clinevo/results"
)

func (a *app) demoCmd() *cobra.Command {
	var cases, stageSize int
	var dir string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the quick experiment on embedded defaults: E0, E1, E2 over a 100-case stream in 4 stages, H0/H3 held-out, BWT; print the summary and write the report",
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			out := cmd.OutOrStdout()
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

			spec, err := experiments.Parse("quick.yaml", experiments.Quick, a.cfg.Settings, a.set)
			if err != nil {
				return err
			}
			if cases != 100 || stageSize != 25 {
				spec.Limit, spec.StageSize = cases, stageSize
			}
			r, err := engine.StartExperiment(ctx, c, eng.Results, a.cfg.Temporal.TaskQueue, spec)
			if err != nil {
				return err
			}
			names := make([]string, len(spec.Conditions))
			for i, cd := range spec.Conditions {
				names[i] = cd.Name
			}
			fmt.Fprintf(out, "temporal frontend %s; experiment %s started: %s\n", srv.Address(), spec.Name, strings.Join(names, ", "))
			if err := follow(ctx, cmd.ErrOrStderr(), r, experimentRows(c, spec.Name)); err != nil {
				return err
			}
			recs, err := eng.Results.Records(ctx, "")
			if err != nil {
				return err
			}
			labels := map[string]string{} // stream conditions' runs
			var streams []results.Record
			for _, cd := range spec.Conditions {
				if cd.Kind == contract.KindStream {
					labels[spec.RunID(cd.Name)] = cd.Title()
				}
			}
			for _, rec := range recs {
				if _, ok := labels[rec.Run]; ok {
					streams = append(streams, rec)
				}
			}
			fmt.Fprintln(out)
			writeStageTable(out, analysis.StageMeans(streams), labels)
			reportDir := filepath.Join(dir, "report")
			rep, err := buildReport(ctx, eng, spec.Name, reportDir)
			if err != nil {
				return err
			}
			fmt.Fprintln(out)
			writeSummary(out, rep)
			fmt.Fprintf(out, "\nreport:  %s\n", filepath.Join(reportDir, "index.html"))
			fmt.Fprintf(out, "results: %s (results.db, memory.db, temporal.db; the server's log: temporal.log)\n", dir)
			fmt.Fprintf(out, "inspect: clinevo --data-dir %s runs list | runs stages | memory stats\n", dir)
			fmt.Fprintf(out, "         clinevo --data-dir %s episode show %s\n", dir, contract.EpisodeWorkflowID(spec.RunID("E1"), 1, 1, 1, streams[0].CaseID))
			return nil
		},
	}
	cmd.Flags().IntVar(&cases, "cases", 100, "episodes per stream condition")
	cmd.Flags().IntVar(&stageSize, "stage-size", 25, "episodes per stage")
	cmd.Flags().StringVar(&dir, "dir", "", "data directory of this demo (default: a new folder under <data_dir>/demo)")
	return cmd
}

func freeLoopbackPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
