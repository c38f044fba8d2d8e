package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/clinevo/clinevo/costplan"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

// addPlan gives the experiment command its plan subcommand.
func (a *app) addPlan(root *cobra.Command) {
	exp, _, err := root.Find([]string{"experiment"})
	if err != nil || exp.Name() != "experiment" {
		return // no experiment command: nothing to extend
	}
	var asJSON bool
	plan := &cobra.Command{
		Use:   "plan SPEC",
		Short: "Estimate an experiment before it starts: episodes, model calls per role, tokens, USD and wall time",
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
			var recs []results.Record
			store, err := engine.OpenResultsReader(cmd.Context(), a.engineOptions(a.cfg.DataDir, true, true))
			switch {
			case errors.Is(err, engine.ErrNoData):
			case err != nil:
				return err
			default:
				defer store.Close()
				if recs, err = store.Records(cmd.Context(), ""); err != nil {
					return err
				}
			}
			planned, used, err := costplan.Compare(a.set, spec, recs)
			if err != nil {
				return err
			}
			ran := false
			for _, r := range recs {
				if costplan.ConditionOf(spec, r) != "" {
					ran = true
					break
				}
			}
			if asJSON {
				out := map[string]any{"plan": planned}
				if ran {
					out["used"] = used
				}
				if spec.Budget != nil && !spec.Budget.IsZero() {
					out["budget"] = map[string]any{"usd": spec.Budget.USD, "tokens": spec.Budget.Tokens, "over": budgetOver(planned, *spec.Budget)}
				}
				return printJSON(cmd, out)
			}
			u := &used
			if !ran {
				u = nil
			}
			if err := writePlan(cmd.OutOrStdout(), planned, u); err != nil {
				return err
			}
			if spec.Budget != nil && !spec.Budget.IsZero() {
				fmt.Fprintln(cmd.OutOrStdout(), budgetLine(planned, *spec.Budget))
			}
			return nil
		},
	}
	plan.Flags().BoolVar(&asJSON, "json", false, "print the plan (and the use, when the experiment has run) as JSON")
	exp.AddCommand(plan)
}

// writePlan prints a plan's table, with the use beside it when there is one.
func writePlan(w io.Writer, p costplan.Plan, used *costplan.Plan) error {
	fmt.Fprintf(w, "experiment %s: planned USD %.2f, wall %s", p.Experiment, p.CostUSD, seconds(p.WallSeconds))
	if used != nil {
		fmt.Fprintf(w, "; used USD %.2f, wall %s", used.CostUSD, seconds(used.WallSeconds))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	head := "CONDITION\tEPISODES\tEVAL EPISODES\tWALL\t"
	if used != nil {
		head = "CONDITION\tEPISODES\tUSED\tEVAL EPISODES\tUSED\tWALL\tUSED\t"
	}
	fmt.Fprintln(tw, head)
	for i, c := range p.Conditions {
		if used != nil && i < len(used.Conditions) {
			u := used.Conditions[i]
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t\n", c.Name, c.Episodes, u.Episodes, c.EvalEpisodes, u.EvalEpisodes, seconds(c.WallSeconds), seconds(u.WallSeconds))
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t\n", c.Name, c.Episodes, c.EvalEpisodes, seconds(c.WallSeconds))
	}
	fmt.Fprintln(tw, "\t")
	head = "ROLE\tMODEL\tCALLS\tIN TOKENS\tOUT TOKENS\tUSD\tSOURCE\t"
	if used != nil {
		head = "ROLE\tMODEL\tCALLS\tUSED\tIN TOKENS\tUSED\tOUT TOKENS\tUSED\tUSD\tUSED\tSOURCE\t"
	}
	fmt.Fprintln(tw, head)
	for i, r := range p.Total {
		if used != nil && i < len(used.Total) {
			u := used.Total[i]
			fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.2f\t%.2f\t%s\t\n", r.Role, r.Model, r.Calls, u.Calls,
				r.PromptTokens, u.PromptTokens, r.CompletionTokens, u.CompletionTokens, r.CostUSD, u.CostUSD, r.Source)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.0f\t%.0f\t%.2f\t%s\t\n", r.Role, r.Model, r.Calls, r.PromptTokens, r.CompletionTokens, r.CostUSD, r.Source)
	}
	return tw.Flush()
}

// seconds spells a duration in seconds as 1h02m or 42s.
func seconds(s float64) string {
	switch {
	case s >= 3600:
		return fmt.Sprintf("%dh%02dm", int(s)/3600, int(s)%3600/60)
	case s >= 60:
		return fmt.Sprintf("%dm%02ds", int(s)/60, int(s)%60)
	}
	return fmt.Sprintf("%.0fs", s)
}

// budgetOver names the experiment caps (budget at the top of the spec) the
// plan's totals reach: "usd", "tokens", both or none.
func budgetOver(p costplan.Plan, b settings.Budget) []string {
	tokens := 0.0
	for _, r := range p.Total {
		tokens += r.PromptTokens + r.CompletionTokens
	}
	over := []string{}
	if b.USD > 0 && p.CostUSD >= b.USD {
		over = append(over, "usd")
	}
	if b.Tokens > 0 && tokens >= float64(b.Tokens) {
		over = append(over, "tokens")
	}
	return over
}

// budgetLine says whether the plan fits the experiment's cap.
func budgetLine(p costplan.Plan, b settings.Budget) string {
	line := fmt.Sprintf("experiment budget: USD %g, tokens %d (0: no cap): ", b.USD, b.Tokens)
	if over := budgetOver(p, b); len(over) > 0 {
		return line + "the plan reaches it (" + strings.Join(over, ", ") + "); the streams will pause there (paused: experiment budget)"
	}
	return line + "the plan is within it"
}
