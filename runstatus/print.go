package runstatus

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/costplan"
	"github.com/clinevo/clinevo/internal/textfmt"
	"github.com/clinevo/clinevo/settings"
)

// Statuses are this package's statuses in the order a help text lists them.
var Statuses = []string{StatusPending, StatusRunning, StatusPaused, StatusStopping, StatusWaiting, StatusCompleted, StatusStopped,
	StatusFailed, StatusTerminated, StatusCanceled, StatusTimedOut}

// Live says whether a stream with status st takes signals: it runs, is
// paused (for any reason: "paused: budget" too), stops or waits.
func Live(st string) bool {
	for _, s := range []string{StatusRunning, StatusPaused, StatusStopping, StatusWaiting} {
		if st == s || strings.HasPrefix(st, s+":") {
			return true
		}
	}
	return false
}

// meansLine renders means for a terminal, rounded; U only where showU says
// the benchmark defines it.
func meansLine(m contract.Means, showU bool) string {
	if m.N == 0 {
		return "n=0"
	}
	u := ""
	if showU {
		u = fmt.Sprintf(" U=%.3f", m.U)
	}
	return fmt.Sprintf("n=%d S=%.3f strict=%.2f%s turns=%.1f tests=%.1f cost=%.0f USD", m.N, m.S, m.Strict, u, m.T, m.E, m.Cost)
}

// WriteStream prints `stream status` as a small table; showU says whether
// the stream's benchmark defines U (its means show it then).
func WriteStream(w io.Writer, run string, st Stream, showU bool) error {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintf(tw, "stream\t%s (workflow %s, profile %s)\n", run, st.WorkflowID, textfmt.OrDash(st.Benchmark))
	fmt.Fprintf(tw, "status\t%s\n", withReason(st.Status, st.Reason))
	if p := st.Progress; p != nil {
		writeProgress(tw, st.Status, p, showU)
	}
	for _, m := range st.StageMeans {
		fmt.Fprintf(tw, "stage %d\t%s\n", m.Stage, meansLine(m.Means, showU))
	}
	if st.QueryError != "" {
		fmt.Fprintf(tw, "progress\tnot answered yet (%s)\n", st.QueryError)
	}
	writeWaiting(tw, st.Waiting)
	for _, e := range st.Endpoints {
		limit := "no limit read yet"
		if !e.LimitAt.IsZero() {
			limit = fmt.Sprintf("limit %d in flight (at %s)", e.Limit, e.LimitAt.Format("15:04:05"))
		}
		fmt.Fprintf(tw, "endpoint\t%s (%s): %s, %d calls, %d answered 429 (%.1f%%), waited %s\n", e.Endpoint,
			strings.Join(e.Roles, ", "), limit, e.Calls, e.RateLimited, 100*e.RateLimitedShare, textfmt.Seconds(e.WaitedSeconds))
	}
	if st.StoreError != "" {
		fmt.Fprintf(tw, "endpoints\tnot read from the results store (%s)\n", textfmt.Clip(st.StoreError, 110))
	}
	for i, r := range st.Rules {
		label := ""
		if i == 0 {
			label = "rules"
		}
		fmt.Fprintf(tw, "%s\t%d. %s\n", label, i+1, textfmt.Clip(r, 110))
	}
	return tw.Flush()
}

// writeProgress prints a stream's episodes, means and spend against its caps.
func writeProgress(tw io.Writer, status string, p *contract.Progress, showU bool) {
	total := "?"
	if p.Total > 0 {
		total = fmt.Sprint(p.Total)
	}
	switch {
	case status == StatusStopped && p.Total > 0:
		fmt.Fprintf(tw, "episodes\t%d of %d played before it stopped, in stage %d of %d\n", p.Cursor, p.Total, p.Stage, p.Stages)
	case status == StatusStopped: // a stream that finished before its result held its progress
		stages := "stages"
		if p.Stages == 1 {
			stages = "stage"
		}
		fmt.Fprintf(tw, "episodes\t%d played before it stopped, in %d %s\n", p.Cursor, p.Stages, stages)
	default:
		fmt.Fprintf(tw, "episodes\t%d of %s, stage %d of %d\n", p.Cursor, total, p.Stage, p.Stages)
	}
	fmt.Fprintf(tw, "overall\t%s\n", meansLine(p.Overall, showU))
	if status != StatusCompleted && status != StatusStopped {
		fmt.Fprintf(tw, "stage %d\t%s\n", p.Stage, meansLine(p.ThisStage, showU))
	}
	writeSpend(tw, "budget", p.Spend, p.Budget)
	writeSpend(tw, "experiment budget", p.ExperimentSpend, p.ExperimentBudget)
}

// withReason is a status with why the run ended or is stuck, when known.
func withReason(status, reason string) string {
	if reason == "" {
		return status
	}
	return status + ": " + textfmt.Clip(reason, 300)
}

// writeSpend prints a cap's line: the spend at the stream's last check of it
// and the cap; nothing for no cap or no check yet.
func writeSpend(tw io.Writer, label string, sp *contract.Spend, b *settings.Budget) {
	if sp == nil || b == nil || b.IsZero() {
		return
	}
	fmt.Fprintf(tw, "%s\t%s\n", label, CapText(sp, *b))
}

// CapText says a cap with the spend at the stream's last check of it
// ("spent model USD 1.2000 of 2.0000 (at the last check)"), the cap alone
// before any check, "no cap" for none.
func CapText(sp *contract.Spend, b settings.Budget) string {
	if b.IsZero() {
		return "no cap"
	}
	var parts []string
	if b.USD > 0 {
		part := fmt.Sprintf("model USD %.4f", b.USD)
		if sp != nil {
			part = fmt.Sprintf("model USD %.4f of %.4f", sp.USD, b.USD)
		}
		parts = append(parts, part)
	}
	if b.Tokens > 0 {
		part := fmt.Sprintf("tokens %d", b.Tokens)
		if sp != nil {
			part = fmt.Sprintf("tokens %d of %d", sp.Tokens, b.Tokens)
		}
		parts = append(parts, part)
	}
	if sp == nil {
		return strings.Join(parts, ", ") + " (no spend checked yet)"
	}
	return "spent " + strings.Join(parts, ", ") + " (at the last check)"
}

func writeWaiting(tw io.Writer, ws []contract.Waiting) {
	for _, wt := range ws {
		fmt.Fprintf(tw, "waiting\t%s (%s) since %s, %d attempts: %s\n", wt.Dependency, wt.WorkflowID, wt.Since.Format("15:04:05"), wt.Attempts, textfmt.Clip(wt.Error, 90))
	}
}

// WriteExperiment prints `experiment status`: the experiment's status, then
// one row per condition (pending ones too), with its progress or, once
// finished, its results, then the plan beside the use. definesU says
// whether a benchmark profile defines U (its column shows it then).
func WriteExperiment(w io.Writer, ex Experiment, definesU func(profile string) bool) error {
	fmt.Fprintf(w, "experiment %s (workflow %s): %s\n", ex.Name, ex.WorkflowID, withReason(ex.Status, ex.Reason))
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "CONDITION\tKIND\tSTATUS\tEPISODES\tSTAGE\tS\tSTRICT\tU\tRUN")
	for _, c := range ex.Conditions {
		writeCondition(tw, c, definesU(c.Benchmark))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	tw = tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	writeWaiting(tw, ex.Waiting)
	if err := tw.Flush(); err != nil {
		return err
	}
	switch {
	case ex.Plan != nil:
		fmt.Fprintln(w)
		return costplan.Write(w, *ex.Plan, ex.Used)
	case ex.PlanError != "":
		fmt.Fprintf(w, "\nplan: not made (%s)\n", textfmt.Clip(ex.PlanError, 110))
	}
	return nil
}

func writeCondition(tw io.Writer, c Condition, showU bool) {
	eps, stage, s, strict, u := "-", "-", "-", "-", "-"
	if c.Status != StatusPending {
		eps = fmt.Sprint(c.Done)
		if c.Total > 0 {
			eps += "/" + fmt.Sprint(c.Total)
		}
	}
	if c.Stages > 0 {
		stage = fmt.Sprintf("%d/%d", c.Stage, c.Stages)
	}
	if m := c.Means; m.N > 0 {
		s, strict = fmt.Sprintf("%.3f", m.S), fmt.Sprintf("%.2f", m.Strict)
		if showU {
			u = fmt.Sprintf("%.3f", m.U)
		}
	}
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, c.Kind, c.Status, eps, stage, s, strict, u, c.Run)
}

// WriteEpisodes prints `episode list`'s table: one row per episode workflow.
func WriteEpisodes(w io.Writer, eps []Episode) error {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "EPISODE\tKIND\tSTAGE\tINDEX\tCASE\tCONDITION\tS\tSTATUS")
	for _, e := range eps {
		s := "-"
		if e.S != nil {
			s = fmt.Sprintf("%.3f", *e.S)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", e.WorkflowID, e.Kind, e.Stage, e.Index, e.CaseID, e.Condition, s, e.Status)
	}
	return tw.Flush()
}
