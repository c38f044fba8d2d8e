package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/runstatus"
	"github.com/clinevo/clinevo/settings"
)

func (a *app) experimentPlanCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "plan SPEC",
		Short: "Estimate an experiment before it starts: episodes, model calls per role, tokens, model USD and wall time",
		Long: "Counts the episodes each condition plays and, per role, the model calls, input and output tokens and\n" +
			"their cost (roles.<role>.price_*, else model_prices), and the wall time at the configured concurrency.\n" +
			"Figures come from the means of earlier runs in the results store when there are any (source recorded),\n" +
			"else from the benchmark's budgets (bound: at most) and clinevo's guesses (guess). When the experiment has\n" +
			"run, each condition is planned from the other runs' records and printed beside what it used. A spec with\n" +
			"an experiment-wide budget (budget at its top) gets a line saying whether the plan reaches it.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := a.loadExperiment(args[0])
			if err != nil {
				return err
			}
			e, err := engine.Plan(cmd.Context(), engine.Configured(a.cfg, true), a.set, spec)
			if err != nil {
				return err
			}
			return output(cmd, asJSON, e, e.Write)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the plan (and the use, when the experiment has run) as JSON")
	return cmd
}

// experimentRaiseBudgetCmd sends a new experiment-wide cap to every live
// stream condition (SignalRaiseExperimentBudget); those the cap paused go
// on when the total is below it. Conditions not started yet start with the
// spec's cap.
func (a *app) experimentRaiseBudgetCmd() *cobra.Command {
	var b settings.Budget
	cmd := &cobra.Command{
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
			return raiseExperimentBudget(cmd, c, ex, b)
		}),
	}
	cmd.Flags().Float64Var(&b.USD, "budget-usd", 0, "the experiment's new cap of model spend in USD (0: none)")
	cmd.Flags().IntVar(&b.Tokens, "budget-tokens", 0, "the experiment's new cap in tokens (0: none)")
	return cmd
}

func raiseExperimentBudget(cmd *cobra.Command, c client.Client, ex runstatus.Experiment, b settings.Budget) error {
	sent := 0
	for _, cd := range ex.Conditions {
		if cd.Kind != contract.KindStream || !runstatus.Live(cd.Status) {
			continue
		}
		if err := c.SignalWorkflow(cmd.Context(), contract.StreamWorkflowID(cd.Run), "", contract.SignalRaiseExperimentBudget, b); err != nil {
			return fmt.Errorf("raise the experiment budget of %s: condition %s (stream %s): %w", ex.Name, cd.Name, cd.Run, err)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "sent %s to stream %s (condition %s, %s): model USD %g, tokens %d (0: no cap)\n",
			contract.SignalRaiseExperimentBudget, cd.Run, cd.Name, cd.Status, b.USD, b.Tokens)
		sent++
	}
	if sent == 0 {
		return fmt.Errorf("experiment %s: no stream condition is running, paused or waiting: nothing to raise", ex.Name)
	}
	return nil
}

// output prints v as JSON with --json, else as write prints it.
func output(cmd *cobra.Command, asJSON bool, v any, write func(io.Writer) error) error {
	if asJSON {
		return printJSON(cmd, v)
	}
	return write(cmd.OutOrStdout())
}
