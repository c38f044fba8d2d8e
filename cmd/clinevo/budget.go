package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/runstatus"
	"github.com/clinevo/clinevo/settings"
)

// addRaiseBudget gives stream resume its --raise-budget flag: the new
// budget goes to the stream (SignalRaiseBudget), which goes on when its
// spend is below it.
func (a *app) addRaiseBudget(root *cobra.Command) {
	resume, _, err := root.Find([]string{"stream", "resume"})
	if err != nil || resume.Name() != "resume" {
		return // no stream resume: nothing to extend
	}
	var raise bool
	var b settings.Budget
	resume.Flags().BoolVar(&raise, "raise-budget", false, "give a stream its spend cap paused (status paused: budget; paused: experiment budget raises the experiment's cap for this stream) a new budget, --budget-usd and --budget-tokens (0: no cap), and go on")
	resume.Flags().Float64Var(&b.USD, "budget-usd", 0, "with --raise-budget: the run's new cap in USD (0: none)")
	resume.Flags().IntVar(&b.Tokens, "budget-tokens", 0, "with --raise-budget: the run's new cap in tokens (0: none)")
	inner := resume.RunE
	resume.RunE = func(cmd *cobra.Command, args []string) error {
		if !raise {
			return inner(cmd, args)
		}
		return a.withClient(func(cmd *cobra.Command, args []string, c client.Client) error {
			if err := c.SignalWorkflow(cmd.Context(), contract.StreamWorkflowID(args[0]), "", contract.SignalRaiseBudget, b); err != nil {
				return fmt.Errorf("raise the budget of stream %s: %w", args[0], err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "sent %s to stream %s: USD %g, tokens %d (0: no cap)\n", contract.SignalRaiseBudget, args[0], b.USD, b.Tokens)
			return nil
		})(cmd, args)
	}
}

// addExperimentRaiseBudget gives experiment its raise-budget subcommand: the
// new experiment-wide cap goes to every live stream condition
// (SignalRaiseExperimentBudget); those the cap paused go on when the total
// is below it. Conditions not started yet start with the spec's cap.
func (a *app) addExperimentRaiseBudget(root *cobra.Command) {
	exp, _, err := root.Find([]string{"experiment"})
	if err != nil || exp.Name() != "experiment" {
		return // no experiment command: nothing to extend
	}
	var b settings.Budget
	raise := &cobra.Command{
		Use:   "raise-budget NAME",
		Short: "Give a running experiment a new experiment-wide cap (budget at the spec's top): its streams paused by it go on",
		Long: "Sends the new cap, --budget-usd and --budget-tokens (0: no cap), to every running, paused or waiting stream\n" +
			"condition of the experiment. A stream the experiment's cap paused (status paused: experiment budget) goes on\n" +
			"when the experiment's total spend is below the new cap. Conditions that have not started yet start with the\n" +
			"spec's cap: raise again when they pause.",
		Example: `  clinevo experiment raise-budget quick --budget-usd 80`,
		Args:    runArg,
		RunE: a.withClient(func(cmd *cobra.Command, args []string, c client.Client) error {
			ex, err := runstatus.ExperimentOf(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			sent := 0
			for _, cd := range ex.Conditions {
				if cd.Kind != contract.KindStream || !liveStatus(cd.Status) {
					continue
				}
				if err := c.SignalWorkflow(cmd.Context(), contract.StreamWorkflowID(cd.Run), "", contract.SignalRaiseExperimentBudget, b); err != nil {
					return fmt.Errorf("raise the experiment budget of %s: condition %s (stream %s): %w", args[0], cd.Name, cd.Run, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "sent %s to stream %s (condition %s, %s): USD %g, tokens %d (0: no cap)\n",
					contract.SignalRaiseExperimentBudget, cd.Run, cd.Name, cd.Status, b.USD, b.Tokens)
				sent++
			}
			if sent == 0 {
				return fmt.Errorf("experiment %s: no stream condition is running, paused or waiting: nothing to raise", args[0])
			}
			return nil
		}),
	}
	raise.Flags().Float64Var(&b.USD, "budget-usd", 0, "the experiment's new cap in USD (0: none)")
	raise.Flags().IntVar(&b.Tokens, "budget-tokens", 0, "the experiment's new cap in tokens (0: none)")
	exp.AddCommand(raise)
}

// liveStatus says whether a condition's status is that of a stream that
// takes signals.
func liveStatus(st string) bool {
	for _, s := range []string{runstatus.StatusRunning, runstatus.StatusPaused, runstatus.StatusStopping, runstatus.StatusWaiting} {
		if st == s || strings.HasPrefix(st, s+":") {
			return true
		}
	}
	return false
}
