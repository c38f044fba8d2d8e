package main

import (
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/clinevo/clinevo/engine"
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
	dir := f.dir
	if dir == "" {
		dir = filepath.Join(a.cfg.DataDir, "demo", time.Now().UTC().Format("20060102-150405"))
	}
	d := engine.Demo{Worker: a.worker(cmd), Settings: a.cfg.Settings, Resize: f.cases != 100 || f.stageSize != 25, Limit: f.cases, StageSize: f.stageSize,
		Logs: a.dialLogging}
	d.Stores.DataDir, d.Stores.Postgres = dir, nil
	return d.Run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
}
