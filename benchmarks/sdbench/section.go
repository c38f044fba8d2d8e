package sdbench

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/clinevo/clinevo/analysis"
)

// The SDBench section of a report: per condition, how its cost splits into
// visits and tests (Nori et al. 2025, §3), and the tests performed whose
// order the price table did not match, each priced at its category's median
// (clinevo's fallback; the paper asked a language model for a price, §2).

var (
	_ analysis.Section    = Benchmark{}
	_ analysis.Summarizer = Benchmark{}
)

// CostRow is one condition's costs.
type CostRow struct {
	Condition string  `json:"condition"`
	Episodes  int     `json:"episodes"`
	Visits    float64 `json:"visits"`    // mean a case
	VisitUSD  float64 `json:"visit_usd"` // mean a case
	TestUSD   float64 `json:"test_usd"`  // mean a case
	Tests     int     `json:"tests"`     // performed, in all
	Unmatched int     `json:"unmatched"` // of Tests, in all
}

// costRows are the rows of the report's SDBench conditions.
func costRows(rep analysis.Report) []CostRow {
	var out []CostRow
	for _, c := range rep.Conditions {
		if c.Benchmark != Name || len(c.Episodes) == 0 {
			continue
		}
		r := CostRow{Condition: c.Name, Episodes: len(c.Episodes)}
		for _, rec := range c.Episodes {
			m := rec.Scores.Metrics
			r.Visits += m["visits"]
			r.VisitUSD += m["visit_cost_usd"]
			r.TestUSD += m["test_cost_usd"]
			r.Tests += rec.Scores.E
			r.Unmatched += int(m["unmatched_orders"])
		}
		n := float64(r.Episodes)
		r.Visits, r.VisitUSD, r.TestUSD = r.Visits/n, round(r.VisitUSD/n), round(r.TestUSD/n)
		out = append(out, r)
	}
	return out
}

// Section is the report's SDBench section, kept in report.json under
// "sdbench"; nothing when no condition plays the benchmark.
func (Benchmark) Section(_ analysis.Input, rep analysis.Report) (string, any, template.HTML) {
	rows := costRows(rep)
	if len(rows) == 0 {
		return Name, nil, ""
	}
	var b strings.Builder
	b.WriteString(`<h2>SDBench: visits, tests and unmatched orders</h2><p>Per case: physician visits ($300 each, a run of consecutive questions and examinations ended by a diagnostic test) and the tests' part of the cost (2025 Medicare national amounts, prices.csv); in all: the tests performed and those whose order the price table did not match, priced at their category's median.</p>`)
	b.WriteString(`<table class="sdbench"><tr><th>condition</th><th>episodes</th><th>visits</th><th>visit USD</th><th>test USD</th><th>tests</th><th>unmatched</th></tr>`)
	for _, r := range rows {
		fmt.Fprintf(&b, `<tr><td>%s</td><td>%d</td><td>%.2f</td><td>%.0f</td><td>%.2f</td><td>%d</td><td>%d</td></tr>`,
			template.HTMLEscapeString(r.Condition), r.Episodes, r.Visits, r.VisitUSD, r.TestUSD, r.Tests, r.Unmatched)
	}
	b.WriteString(`</table>`)
	return Name, rows, template.HTML(b.String())
}

// Summary is the terminal's line of unmatched orders, condition by condition.
func (Benchmark) Summary(rep analysis.Report) []string {
	rows := costRows(rep)
	if len(rows) == 0 {
		return nil
	}
	parts := make([]string, len(rows))
	for i, r := range rows {
		parts[i] = fmt.Sprintf("%s %d of %d", r.Condition, r.Unmatched, r.Tests)
	}
	return []string{"sdbench tests the price table did not match (priced at their category's median): " + strings.Join(parts, ", ")}
}
