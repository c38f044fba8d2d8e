// Package recorded reads what the results store and the memory bank hold of
// past and running runs, for the command line's inspection commands: the
// runs with their means and model use, stage tables, one episode, one card
// with the episode that wrote it, exports, and reports.
package recorded

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/internal/textfmt"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/runstatus"
)

// RunSummary is one row of `runs list`.
type RunSummary struct {
	results.Run
	Episodes   int                      `json:"episodes"`
	S          *float64                 `json:"s"` // mean S over the run's episodes; null without episodes
	StageMeans []analysis.StageMean     `json:"stage_means"`
	Usage      results.Usage            `json:"usage"`
	ByRole     map[string]results.Usage `json:"usage_by_role"`
}

// Runs lists every run: the runs the store describes, then those only
// episode records name (held-out evaluations of older builds), with their
// stage means and model usage.
func Runs(ctx context.Context, store results.Store) ([]RunSummary, error) {
	runs, _, err := store.Runs(ctx)
	if err != nil {
		return nil, err
	}
	recs, err := store.Records(ctx, "")
	if err != nil {
		return nil, err
	}
	byRun := map[string][]results.Record{}
	var order []string
	for _, r := range recs {
		if _, ok := byRun[r.Run]; !ok {
			order = append(order, r.Run)
		}
		byRun[r.Run] = append(byRun[r.Run], r)
	}
	known := map[string]bool{}
	for _, r := range runs {
		known[r.Run] = true
	}
	for _, run := range order {
		if !known[run] {
			runs = append(runs, results.Run{Run: run, Kind: byRun[run][0].Kind})
		}
	}
	out := make([]RunSummary, 0, len(runs))
	for _, r := range runs {
		row, err := summarise(ctx, store, r, byRun[r.Run])
		if err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, nil
}

// summarise is a run's row: its records' means and the store's account of
// its model use, per role and in all.
func summarise(ctx context.Context, store results.Spend, r results.Run, recs []results.Record) (RunSummary, error) {
	row := RunSummary{Run: r, Episodes: len(recs), StageMeans: analysis.StageMeans(recs)}
	if n := len(recs); n > 0 {
		var sum float64
		for _, rec := range recs {
			sum += rec.Scores.S
		}
		s := runstatus.Round(sum / float64(n))
		row.S = &s
	}
	sort.Slice(row.StageMeans, func(i, j int) bool { return row.StageMeans[i].Stage < row.StageMeans[j].Stage })
	var err error
	if row.ByRole, err = store.RunUsage(ctx, r.Run); err != nil {
		return RunSummary{}, err
	}
	for _, u := range row.ByRole {
		t := &row.Usage
		t.Calls, t.PromptTokens, t.CompletionTokens = t.Calls+u.Calls, t.PromptTokens+u.PromptTokens, t.CompletionTokens+u.CompletionTokens
		t.CacheHits, t.CostUSD, t.ExtraFields = t.CacheHits+u.CacheHits, t.CostUSD+u.CostUSD, t.ExtraFields+u.ExtraFields
		t.CachedTokens, t.RateLimited, t.WaitedMS = t.CachedTokens+u.CachedTokens, t.RateLimited+u.RateLimited, t.WaitedMS+u.WaitedMS
	}
	return row, nil
}

// WriteRuns prints `runs list`'s table: a row per run, then one per role of
// its model use.
func WriteRuns(w io.Writer, rows []RunSummary) error {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tKIND\tEPISODES\tS\tS BY STAGE\tMODEL CALLS\tTOKENS IN\tCACHED IN\tTOKENS OUT\tCACHE HITS\tEXTRA FIELDS\tMODEL COST USD\tWORKFLOW")
	for _, r := range rows {
		s, stages := "-", make([]string, 0, len(r.StageMeans))
		if r.S != nil {
			s = fmt.Sprintf("%.3f", *r.S)
		}
		for _, m := range r.StageMeans {
			stages = append(stages, fmt.Sprintf("%.3f", m.S))
		}
		t := r.Usage
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%.4f\t%s\n", r.Run.Run, r.Kind, r.Episodes, s, textfmt.OrDash(strings.Join(stages, " ")),
			t.Calls, t.PromptTokens, t.CachedTokens, t.CompletionTokens, t.CacheHits, t.ExtraFields, t.CostUSD, textfmt.OrDash(r.WorkflowID))
		for _, role := range slices.Sorted(maps.Keys(r.ByRole)) {
			u := r.ByRole[role]
			fmt.Fprintf(tw, "  %s\t\t\t\t\t%d\t%d\t%d\t%d\t%d\t%d\t%.4f\t\n", role, u.Calls, u.PromptTokens, u.CachedTokens, u.CompletionTokens, u.CacheHits, u.ExtraFields, u.CostUSD)
		}
	}
	return tw.Flush()
}

// Stages are the stage means of the records of runs (none: every run),
// with each run labelled by its ID, as `runs stages` shows them; never nil.
func Stages(recs []results.Record, runs []string) ([]analysis.StageMean, map[string]string) {
	labels := map[string]string{}
	var keep []results.Record
	for _, r := range recs {
		if len(runs) == 0 || slices.Contains(runs, r.Run) {
			keep = append(keep, r)
			labels[r.Run] = r.Run
		}
	}
	means := analysis.StageMeans(keep)
	if means == nil {
		means = []analysis.StageMean{}
	}
	return means, labels
}
