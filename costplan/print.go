package costplan

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/internal/textfmt"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

// Estimate is what `experiment plan` prints: the plan, the use beside it
// once the experiment has run, and whether the plan reaches the spec's
// experiment-wide cap. Its JSON keys are those of the command's --json.
type Estimate struct {
	Budget *BudgetCheck `json:"budget,omitempty"` // nil: the spec sets no experiment-wide cap
	Plan   Plan         `json:"plan"`
	Used   *Plan        `json:"used,omitempty"` // nil: no record of the experiment yet
}

// BudgetCheck is a plan's totals against the experiment's cap: Over names
// the caps they reach ("usd", "tokens"; empty: within it).
type BudgetCheck struct {
	Over   []string `json:"over"`
	Tokens int      `json:"tokens"`
	USD    float64  `json:"usd"`
}

// EstimateOf plans spec, whose conditions play benchmarks of set, from
// recs, the results store's records (Compare), with the use of the
// conditions that have records of their own.
func EstimateOf(set bench.Set, spec contract.ExperimentSpec, recs []results.Record) (Estimate, error) {
	planned, used, err := Compare(set, spec, recs)
	if err != nil {
		return Estimate{}, err
	}
	e := Estimate{Plan: planned}
	for _, r := range recs {
		if ConditionOf(spec, r) != "" {
			e.Used = &used
			break
		}
	}
	if b := spec.Budget; b != nil && !b.IsZero() {
		e.Budget = &BudgetCheck{Over: Over(planned, *b), Tokens: b.Tokens, USD: b.USD}
	}
	return e, nil
}

// Write prints the estimate's table, then its line about the cap.
func (e Estimate) Write(w io.Writer) error {
	if err := Write(w, e.Plan, e.Used); err != nil {
		return err
	}
	if b := e.Budget; b != nil {
		fmt.Fprintln(w, BudgetLine(e.Plan, settings.Budget{USD: b.USD, Tokens: b.Tokens}))
	}
	return nil
}

// Write prints a plan's table, with the use beside it when there is one.
func Write(w io.Writer, p Plan, used *Plan) error {
	fmt.Fprintf(w, "experiment %s: planned model USD %.2f, wall %s", p.Experiment, p.CostUSD, textfmt.Seconds(p.WallSeconds))
	if used != nil {
		fmt.Fprintf(w, "; used model USD %.2f, wall %s", used.CostUSD, textfmt.Seconds(used.WallSeconds))
	}
	fmt.Fprintln(w)
	if p.Cores > 0 && p.WallSeconds > p.ChainSeconds {
		fmt.Fprintf(w, "planned wall: the episodes' processor time, %s, over %d cores (more than the longest chain of conditions, %s)\n",
			textfmt.Seconds(p.CPUSeconds), p.Cores, textfmt.Seconds(p.ChainSeconds))
	}
	if o := p.Orderings; o != nil {
		fmt.Fprintf(w, "orderings %d: %s played %d times each: %d of the %d episodes (records stored) and model USD %.2f of %.2f; both grow linearly with orderings\n",
			o.N, strings.Join(o.Repeated, ", "), o.N, o.Episodes, o.Total, o.CostUSD, p.CostUSD)
	}
	if e := p.Epochs; e != nil {
		each := make([]string, len(e.Conditions))
		for i, name := range e.Conditions {
			each[i] = fmt.Sprintf("%s %d", name, e.K[i])
		}
		fmt.Fprintf(w, "epochs (%s): each held-out case played that many times: %d of the %d episodes (records stored) and model USD %.2f of %.2f; both grow linearly with epochs\n",
			strings.Join(each, ", "), e.Episodes, e.Total, e.CostUSD, p.CostUSD)
	}
	var matts []string
	for _, c := range p.Conditions {
		if c.Attempts > 1 {
			matts = append(matts, fmt.Sprintf("%s %d", c.Name, c.Attempts))
		}
	}
	if len(matts) > 0 {
		fmt.Fprintf(w, "MaTTS attempts (%s): each stream case played that many times at once; every role but the evolver's is planned that many times over\n",
			strings.Join(matts, ", "))
	}
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	writeConditions(tw, p, used)
	fmt.Fprintln(tw, "\t")
	writeRoles(tw, p, used)
	return tw.Flush()
}

func writeConditions(tw io.Writer, p Plan, used *Plan) {
	head := "CONDITION\tEPISODES\tEVAL EPISODES\tWALL\t"
	if used != nil {
		head = "CONDITION\tEPISODES\tUSED\tEVAL EPISODES\tUSED\tWALL\tUSED\t"
	}
	fmt.Fprintln(tw, head)
	for i, c := range p.Conditions {
		if used != nil && i < len(used.Conditions) {
			u := used.Conditions[i]
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t\n", c.Name, c.Episodes, u.Episodes, c.EvalEpisodes, u.EvalEpisodes,
				textfmt.Seconds(c.WallSeconds), textfmt.Seconds(u.WallSeconds))
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t\n", c.Name, c.Episodes, c.EvalEpisodes, textfmt.Seconds(c.WallSeconds))
	}
}

func writeRoles(tw io.Writer, p Plan, used *Plan) {
	head := "ROLE\tMODEL\tCALLS\tIN TOKENS\tOUT TOKENS\tMODEL USD\tSOURCE\t"
	if used != nil {
		head = "ROLE\tMODEL\tCALLS\tUSED\tIN TOKENS\tUSED\tOUT TOKENS\tUSED\tMODEL USD\tUSED\tSOURCE\t"
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
}

// Over names the experiment caps (budget at the top of the spec) the
// plan's totals reach: "usd", "tokens", both or none.
func Over(p Plan, b settings.Budget) []string {
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

// BudgetLine says whether the plan fits the experiment's cap.
func BudgetLine(p Plan, b settings.Budget) string {
	line := fmt.Sprintf("experiment budget: model USD %g, tokens %d (0: no cap): ", b.USD, b.Tokens)
	if over := Over(p, b); len(over) > 0 {
		return line + "the plan reaches it (" + strings.Join(over, ", ") + "); the streams will pause there (paused: experiment budget)"
	}
	return line + "the plan is within it"
}
