package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/results"
)

// evaluationCmd holds `evaluation terminate`, the way to end a held-out
// condition's or a stage's evaluation that cannot end itself
// (engine.Terminate); streams and experiments have their own.
func (a *app) evaluationCmd() *cobra.Command {
	eval := &cobra.Command{Use: "evaluation", Short: "End a held-out condition's or a stage's evaluation that cannot end itself"}
	eval.AddCommand(a.terminateCmd(contract.KindHeldOut, "RUN", "evaluation", "an evaluation (a held-out condition's run, e.g. quick-H0, or a stage evaluation's, e.g. r1/eval-s02) and its episodes"))
	return eval
}

func (a *app) terminateCmd(kind contract.Kind, arg, what, ends string) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "terminate " + arg + " --reason TEXT",
		Short: "End " + ends + " now, for good, recording why",
		Long: "End " + ends + " now, for good: Temporal terminates its workflow and every workflow under it that\n" +
			"still runs, with the reason, and the results store records the reason with the run, so that status and\n" +
			"the viewer say \"terminated: <reason>\". What was recorded stays readable; `clinevo stream restart`\n" +
			"continues a terminated stream after its last completed episode. For a run that is stuck: a stop or a pause\n" +
			"waits for the run to take them.",
		Args: func(cmd *cobra.Command, args []string) error {
			if err := cobra.ExactArgs(1)(cmd, args); err != nil {
				return err
			}
			if err := contract.ValidateRunID(contract.StreamOfRunID(args[0])); err != nil {
				return fmt.Errorf("%s terminate: %s: %w", what, arg, err)
			}
			if strings.TrimSpace(reason) == "" {
				return fmt.Errorf("%s terminate: --reason is required: say why the run is ended (status and the viewer show it)", what)
			}
			return nil
		},
		RunE: a.withClient(func(cmd *cobra.Command, args []string, c client.Client) error {
			var t engine.Terminated
			err := engine.WithResults(cmd.Context(), engine.Configured(a.cfg, false), func(store results.Store) (err error) {
				t, err = engine.Terminate(cmd.Context(), c, store, kind, args[0], reason)
				return err
			})
			if errors.Is(err, engine.ErrNotRunning) {
				return badInput(err)
			}
			if err == nil {
				t.Write(cmd.OutOrStdout(), what, args[0])
			}
			return err
		}),
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why the run is ended (required)")
	return cmd
}
