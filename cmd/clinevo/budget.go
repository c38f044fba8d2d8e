package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
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
