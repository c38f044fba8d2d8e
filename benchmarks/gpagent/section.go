package gpagent

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/clinevo/clinevo/analysis"
)

// The GPAgentBench section of a report (GPAgentBench §5): per condition the
// clinical quality, safety failures and efficiency of its Table 1, the
// Miss-Refer against Miss-GP scatter of its Figure 4 (where each condition
// sits between over-confident local management and over-cautious referral),
// and the stage curves of management accuracy and Miss-Refer of the streams.
// It reads the benchmark's metrics (dx, tx, mgmt, miss_refer, miss_gp, dest,
// turns, dup_rate, masked, timeout), each averaged over the episodes that
// define it.

var _ analysis.Section = Benchmark{}

// Section is the report's GPAgentBench section, on the page only (its numbers
// are the conditions' own): nothing when no condition plays the benchmark.
func (Benchmark) Section(_ analysis.Input, rep analysis.Report) (string, any, template.HTML) {
	return Name, nil, section(rep)
}

// columns are the table's metrics with their headings; rates print as
// percentages, as Table 1 does.
var columns = []struct {
	key, head string
	percent   bool
}{
	{"dx", "Dx acc. (%)", true}, {"tx", "Tx score (%)", true},
	{MetricDxCommitted, "Dx committed (%)", true}, {MetricTxCommitted, "Tx committed (%)", true}, {"mgmt", "Mgmt acc. (%)", true},
	{"miss_refer", "Miss-Refer (%)", true}, {"miss_gp", "Miss-GP (%)", true}, {"dest", "Dest (%)", true},
	{"turns", "avg turns", false}, {"dup_rate", "dup. actions (%)", true}, {"masked", "masked / ep.", false}, {"timeout", "timeouts (%)", true},
}

// conditions are the report's conditions that play the benchmark.
func conditions(rep analysis.Report) []analysis.ConditionReport {
	var out []analysis.ConditionReport
	for _, c := range rep.Conditions {
		if c.Benchmark == Name {
			out = append(out, c)
		}
	}
	return out
}

// section renders the section, or nothing when no condition plays the benchmark.
func section(rep analysis.Report) template.HTML {
	conds := conditions(rep)
	if len(conds) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(`<h2>GPAgentBench: quality, safety, efficiency</h2><p>As GPAgentBench's Table 1: Dx and Tx over all test cases (a referral names no diagnosis and scores 0 on both, as §5 and appendix C.2 average them), beside clinevo's secondary "committed" Dx and Tx over the episodes that do not end in refer; management accuracy over all, Miss-Refer over the cases that need referral and Miss-GP over the manageable ones (a timeout is its class's failure), Dest the share of cases needing referral sent to a right destination, the diagnostic cost in USD (tests only).</p>`)
	b.WriteString(`<table class="gpagent"><tr><th>condition</th><th>episodes</th>`)
	for _, col := range columns {
		fmt.Fprintf(&b, "<th>%s</th>", template.HTMLEscapeString(col.head))
	}
	b.WriteString("<th>cost USD</th></tr>\n")
	for _, c := range conds {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td>", template.HTMLEscapeString(c.Name), c.Overall.N)
		for _, col := range columns {
			v, ok := c.Overall.Metrics[col.key]
			switch {
			case !ok:
				b.WriteString("<td>–</td>")
			case col.percent:
				fmt.Fprintf(&b, "<td>%.1f</td>", 100*v)
			default:
				fmt.Fprintf(&b, "<td>%.2f</td>", v)
			}
		}
		fmt.Fprintf(&b, "<td>%.0f</td></tr>\n", c.Overall.Cost)
	}
	b.WriteString("</table>\n")
	b.WriteString(`<h3>Referral against local management</h3><p>Each condition's Miss-Refer (missed referrals among cases that need one, x) against its Miss-GP (unnecessary referrals among manageable cases, y), with GPAgentBench Figure 4's axes: lower left is safe both ways, lower right over-confident (manages locally what needs referral), upper left over-cautious (refers what could be managed).</p>`)
	b.WriteString(string(scatter(conds)))
	sub := analysis.Report{Experiment: rep.Experiment}
	for _, c := range conds {
		if len(c.Stages) > 0 {
			sub.Conditions = append(sub.Conditions, c)
		}
	}
	if len(sub.Conditions) > 0 {
		b.WriteString(`<h3>Safety over the stream</h3><p>Stage means of management accuracy and of Miss-Refer: what learning does to the quality-safety gap.</p>`)
		for _, m := range []struct{ key, name string }{{"mgmt", "Mgmt"}, {"miss_refer", "Miss-Refer"}} {
			b.WriteString(string(analysis.Curves(sub, m.name, func(s analysis.StageMean) float64 { return s.Metrics[m.key] }, 0, 1, false)))
		}
	}
	return template.HTML(b.String())
}

// scatter draws Miss-GP (y) against Miss-Refer (x), both in percent, as
// GPAgentBench's Figure 4 does (§5: Claude Sonnet 4.6, 77.1% Miss-Refer and
// 13.4% Miss-GP, sits bottom right; Kimi K2.6, 40.3% and 71.8%, top left).
func scatter(conds []analysis.ConditionReport) template.HTML {
	const W, H, L, B, T, R = 640, 370, 60, 50, 30, 180
	px := func(v float64) float64 { return L + v*float64(W-L-R)/100 }
	py := func(v float64) float64 { return T + (100-v)*float64(H-T-B)/100 }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart scatter" role="img" aria-label="Miss-GP against Miss-Refer" viewBox="0 0 %d %d" width="%d" height="%d">`, W, H, W, H)
	analysis.ChartTitle(&b, L, "Unnecessary referrals (Miss-GP) against missed referrals (Miss-Refer), by condition (Figure 4)")
	for v := 0.0; v <= 100; v += 25 {
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#ddd"/><text x="%.1f" y="%d" font-size="11" text-anchor="middle">%.0f</text>`, px(v), px(v), T, H-B, px(v), H-B+16, v)
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" font-size="11" text-anchor="end">%.0f</text>`, L, W-R, py(v), py(v), L-6, py(v)+4, v)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" text-anchor="middle">Miss-Refer (%%): missed referrals</text>`, (L+W-R)/2, H-10)
	fmt.Fprintf(&b, `<text x="14" y="%d" font-size="12" text-anchor="middle" transform="rotate(-90 14 %d)">Miss-GP (%%): unnecessary referrals</text>`, (T+H-B)/2, (T+H-B)/2)
	for i, c := range conds {
		mr, okR := c.Overall.Metrics["miss_refer"]
		mg, okG := c.Overall.Metrics["miss_gp"]
		if !okR || !okG {
			continue // a condition without both kinds of case has no point
		}
		col := analysis.Palette[i%len(analysis.Palette)]
		fmt.Fprintf(&b, `<circle class="point" cx="%.1f" cy="%.1f" r="5" fill="%s"><title>%s: Miss-Refer %.1f%%, Miss-GP %.1f%%</title></circle>`,
			px(100*mr), py(100*mg), col, template.HTMLEscapeString(c.Name), 100*mr, 100*mg)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d" font-size="12">%s</text>`, W-R+12, T+i*18, col, W-R+30, T+i*18+11, template.HTMLEscapeString(c.Name))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
