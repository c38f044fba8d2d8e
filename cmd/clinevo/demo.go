package main

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/activities"
	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/devserver"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/workflows"
)

func (a *app) demoCmd() *cobra.Command {
	var cases, stageSize int
	var dir string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the demo on embedded defaults: a 100-case stream in 4 stages under E0 (no memory) and E1 (memory from empty)",
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
			c, err := a.dial(srv.Address())
			if err != nil {
				return err
			}
			defer c.Close()
			eng, err := engine.Open(ctx, engine.Options{DataDir: dir, MemoryDim: a.cfg.Memory.Dim, Roles: a.cfg.Roles})
			if err != nil {
				return err
			}
			defer eng.Close()
			w := eng.NewWorker(c, workflows.TaskQueue)
			if err := w.Start(); err != nil {
				return err
			}
			defer w.Stop()

			labels := map[string]string{"demo-e0": "E0 (memory disabled)", "demo-e1": "E1 (memory from empty)"}
			var runs []client.WorkflowRun
			for _, run := range []string{"demo-e0", "demo-e1"} {
				f := streamFlags{spec: activities.StreamSpec{RunID: run, Corpus: "builtin:stream", Limit: cases, StageSize: stageSize, Memory: activities.MemoryEmpty}}
				if run == "demo-e0" {
					f.spec.Memory, f.noRules = activities.MemoryDisabled, true
				}
				s, err := a.buildSpec(&f)
				if err != nil {
					return err
				}
				r, err := startStream(ctx, c, s)
				if err != nil {
					return err
				}
				runs = append(runs, r)
			}
			fmt.Fprintf(out, "temporal frontend %s; streams demo-e0/stream and demo-e1/stream started (%d episodes each)\n", srv.Address(), cases)
			if err := follow(ctx, c, out, runs, cases, stageSize); err != nil {
				return err
			}
			recs, err := eng.Results.Records(ctx, "")
			if err != nil {
				return err
			}
			fmt.Fprintln(out)
			writeStageTable(out, analysis.StageMeans(recs), labels)
			fmt.Fprintf(out, "\nresults: %s (results.db, memory.db, temporal.db)\n", dir)
			fmt.Fprintf(out, "inspect: clinevo --data-dir %s runs list | runs export --format jsonl | memory stats\n", dir)
			fmt.Fprintf(out, "         clinevo --data-dir %s episode show %s\n", dir, workflows.EpisodeWorkflowID("demo-e1", 1, 4, cases, recs[len(recs)-1].CaseID))
			fmt.Fprintf(out, "browse histories: clinevo --data-dir %s dev  (then temporal --address 127.0.0.1:7233 workflow list)\n", dir)
			return nil
		},
	}
	cmd.Flags().IntVar(&cases, "cases", 100, "episodes per run")
	cmd.Flags().IntVar(&stageSize, "stage-size", 25, "episodes per stage")
	cmd.Flags().StringVar(&dir, "dir", "", "data directory of this demo (default: a new folder under <data_dir>/demo)")
	return cmd
}

// follow waits for every run, printing running means as stages finish.
func follow(ctx context.Context, c client.Client, out interface{ Write([]byte) (int, error) }, runs []client.WorkflowRun, total, stageSize int) error {
	done := make(chan error, len(runs))
	for _, r := range runs {
		go func(r client.WorkflowRun) {
			var res workflows.StreamResult
			done <- r.Get(ctx, &res)
		}(r)
	}
	last := map[string]int{}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for finished := 0; finished < len(runs); {
		select {
		case err := <-done:
			if err != nil {
				return err
			}
			finished++
		case <-tick.C:
			for _, r := range runs {
				v, err := c.QueryWorkflow(ctx, r.GetID(), "", workflows.QueryProgress)
				if err != nil {
					continue
				}
				var p workflows.Progress
				if v.Get(&p) != nil || p.Cursor/stageSize == last[p.Run] {
					continue
				}
				last[p.Run] = p.Cursor / stageSize
				fmt.Fprintf(out, "  %s: %d/%d episodes, running S=%.3f strict=%.2f U=%.3f\n", p.Run, p.Cursor, total, p.Overall.S, p.Overall.Strict, p.Overall.U)
			}
		case <-ctx.Done():
			return ctx.Err()
		}
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
