package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

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
// stream condition (engine.RaiseExperimentBudget); those the cap paused go
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
			"spec's cap: raise again when they pause. Each stream answers with its status and caps, or refuses a cap the\n" +
			"total it last read still reaches (exit status 2 when any refused); one whose worker is older than updates,\n" +
			"or that no worker takes within " + engine.SteerWait.String() + ", gets the signal instead, unchecked.",
		Example: `  clinevo experiment raise-budget quick --budget-usd 80`,
		Args:    runArg,
		RunE: a.withClient(func(cmd *cobra.Command, args []string, c client.Client) error {
			ex, err := runstatus.ExperimentOf(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			raised, err := engine.RaiseExperimentBudget(cmd.Context(), c, ex, b)
			for _, r := range raised {
				if r.Err == nil {
					fmt.Fprintln(cmd.OutOrStdout(), r)
				}
			}
			if errors.Is(err, engine.ErrRefused) {
				return badInput(err)
			}
			return err
		}),
	}
	cmd.Flags().Float64Var(&b.USD, "budget-usd", 0, "the experiment's new cap of model spend in USD (0: none)")
	cmd.Flags().IntVar(&b.Tokens, "budget-tokens", 0, "the experiment's new cap in tokens (0: none)")
	return cmd
}

// output prints v as JSON with --json, else as write prints it.
func output(cmd *cobra.Command, asJSON bool, v any, write func(io.Writer) error) error {
	if asJSON {
		return printJSON(cmd, v)
	}
	return write(cmd.OutOrStdout())
}
