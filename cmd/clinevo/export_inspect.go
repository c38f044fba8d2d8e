package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/inspectlog"
)

func (a *app) exportCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "export", Short: "Export recorded runs in other tools' formats"}
	var out string
	inspect := &cobra.Command{
		Use:   "inspect RUN",
		Short: "Write a run as an inspect_ai eval log (DIR/<run>.json: one sample an episode, with messages, scores and metadata) for inspect view",
		Args:  cobra.ExactArgs(1),
		RunE: a.withEngine(true, func(cmd *cobra.Command, args []string, eng *engine.Engine) error {
			l, err := inspectlog.Load(cmd.Context(), eng.Results, eng.Benchmarks, args[0])
			if err != nil {
				return err
			}
			path, err := inspectlog.Write(out, l)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d samples\n", path, len(l.Samples))
			return nil
		}),
	}
	inspect.Flags().StringVar(&out, "out", ".", "directory to write the log into")
	cmd.AddCommand(inspect)
	return cmd
}
