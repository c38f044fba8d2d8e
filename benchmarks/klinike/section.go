package klinike

import (
	"bytes"
	"fmt"
	"html/template"
	"slices"
	"sort"
	"strings"

	"github.com/clinevo/clinevo/analysis"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
)

// KlinikeBench's report section (KlinikeBench §2.2, §4 and appendix D):
// strict pass@1 and the four gates per condition; for every variant of the
// baseline conditions (a condition named BASE@VARIANT, paired with BASE: a
// patient substitution, a step cap, the chart mode; or a run re-scored under
// another judge, <experiment>-BASE@VARIANT) the change of each doctor's
// strict pass@1 with a paired-bootstrap 95% interval and Kendall's τ between
// the doctors' rankings; and the stage curves of strict pass@1 and each gate.

// SectionKey is the section's member of report.json.
const SectionKey = Name

var _ analysis.Section = Benchmark{}

// Section is the report's KlinikeBench section: its data under "klinike",
// none when no condition is a KlinikeBench one.
func (Benchmark) Section(in analysis.Input, rep analysis.Report) (string, any, template.HTML) {
	r := report(in, rep)
	if r == nil {
		return SectionKey, nil, ""
	}
	return SectionKey, r, sectionHTML(rep, r)
}

// Report is the KlinikeBench section of a report.
type Report struct {
	Conditions []Condition `json:"conditions"`
	Variants   []Variant   `json:"variants,omitempty"`
}

// Condition is one condition's (or re-scored run's) strict pass@1 and
// gates: means over its episodes (each gate over the episodes that define it).
type Condition struct {
	Name     string   `json:"name"`
	Run      string   `json:"run"`
	Rescored bool     `json:"rescored,omitempty"` // a run re-scored under another judge, not a condition
	N        int      `json:"n"`
	Pass1    *float64 `json:"pass1"` // nil in the chart mode, which has no tools and no questions
	D        float64  `json:"d"`
	W        *float64 `json:"w"`
	A        *float64 `json:"a"`
	H        *float64 `json:"h"`
	RMulti   *float64 `json:"r_multi"`
}

// Variant compares each doctor's baseline with its variant.
type Variant struct {
	Variant string `json:"variant"`
	// Metric is pass1, or d where the variant has no pass@1 (the chart mode,
	// compared on diagnosis accuracy as KlinikeBench §4 does).
	Metric  string   `json:"metric"`
	Changes []Change `json:"changes"`
	// Tau is Kendall's τ-b between the doctors' rankings by the metric under
	// the baseline and under the variant; nil with fewer than two doctors.
	Tau *float64 `json:"kendall_tau"`
}

// Change is one doctor's change under a variant, over the tasks both
// played: the means and the paired-bootstrap 95% interval of the change.
type Change struct {
	Doctor  string            `json:"doctor"`
	N       int               `json:"n"`
	Base    float64           `json:"base"`
	Variant float64           `json:"variant"`
	Delta   float64           `json:"delta"`
	CI      analysis.Interval `json:"ci"`
}

// played reports whether a condition is a KlinikeBench one with episodes.
func played(c analysis.ConditionReport) bool { return c.Benchmark == Name && len(c.Episodes) > 0 }

// report builds the section from the conditions' records and the re-scored
// runs of the experiment; nil when no condition is a KlinikeBench one.
func report(in analysis.Input, rep analysis.Report) *Report {
	out := &Report{}
	runs := map[string][]results.Record{}
	var names []string
	for _, c := range rep.Conditions {
		if played(c) {
			runs[c.Name] = c.Episodes
			names = append(names, c.Name)
			out.Conditions = append(out.Conditions, condition(c.Name, c.Run, c.Episodes, false))
		}
	}
	if len(names) == 0 {
		return nil
	}
	// Runs re-scored under another judge (rescore.Experiment): <experiment>-BASE@VARIANT.
	var rescored []string
	for run, recs := range in.Records {
		name, ok := strings.CutPrefix(run, in.Spec.Name+"-")
		base, _, isVariant := strings.Cut(name, contract.VariantSep)
		if ok && isVariant && runs[name] == nil && runs[base] != nil && len(recs) > 0 {
			rescored = append(rescored, name)
		}
	}
	sort.Strings(rescored)
	for _, name := range rescored {
		recs := in.Records[in.Spec.RunID(name)]
		runs[name] = recs
		names = append(names, name)
		out.Conditions = append(out.Conditions, condition(name, in.Spec.RunID(name), recs, true))
	}
	// Variants, in the order they first appear.
	var variants []string
	for _, n := range names {
		if _, v, ok := strings.Cut(n, contract.VariantSep); ok && !slices.Contains(variants, v) {
			variants = append(variants, v)
		}
	}
	for _, v := range variants {
		kv := Variant{Variant: v, Metric: MetricPass}
		var bases []string
		for _, n := range names {
			if !strings.Contains(n, contract.VariantSep) && runs[n+contract.VariantSep+v] != nil {
				bases = append(bases, n)
			}
		}
		for _, b := range bases {
			if !defines(runs[b+contract.VariantSep+v], MetricPass) || !defines(runs[b], MetricPass) {
				kv.Metric = MetricD
			}
		}
		var base, variant []float64
		for _, b := range bases {
			pa, pb := analysis.Pairs(runs[b], runs[b+contract.VariantSep+v])
			ch := Change{Doctor: b, N: len(pa)}
			if len(pa) == 0 {
				continue
			}
			d := make([]float64, len(pa))
			for i := range pa {
				x, y := pa[i].Scores.Metrics[kv.Metric], pb[i].Scores.Metrics[kv.Metric]
				ch.Base += x / float64(len(pa))
				ch.Variant += y / float64(len(pa))
				d[i] = y - x
			}
			ch.Delta, ch.CI = analysis.Mean(d), analysis.BootstrapMean(d, 2000, analysis.Seed)
			kv.Changes = append(kv.Changes, ch)
			base, variant = append(base, ch.Base), append(variant, ch.Variant)
		}
		if len(kv.Changes) >= 2 {
			tau := analysis.KendallTau(base, variant)
			kv.Tau = &tau
		}
		if len(kv.Changes) > 0 {
			out.Variants = append(out.Variants, kv)
		}
	}
	return out
}

func defines(recs []results.Record, metric string) bool {
	if len(recs) == 0 {
		return false
	}
	for _, r := range recs {
		if _, ok := r.Scores.Metrics[metric]; !ok {
			return false
		}
	}
	return true
}

func condition(name, run string, recs []results.Record, rescored bool) Condition {
	m := analysis.Overall(recs).Metrics
	opt := func(k string) *float64 {
		if v, ok := m[k]; ok {
			return &v
		}
		return nil
	}
	return Condition{Name: name, Run: run, Rescored: rescored, N: len(recs), Pass1: opt(MetricPass), D: m[MetricD],
		W: opt(MetricW), A: opt(MetricA), H: opt(MetricH), RMulti: opt(MetricRMulti)}
}

// sectionHTML renders the section for the page: the tables and the stage
// curves of strict pass@1 and each gate of the stream conditions.
func sectionHTML(rep analysis.Report, k *Report) template.HTML {
	streams := analysis.Report{}
	for _, c := range rep.Conditions {
		if len(c.Stages) > 0 && played(c) && defines(c.Episodes, MetricPass) {
			streams.Conditions = append(streams.Conditions, c)
		}
	}
	type chart struct {
		Name string
		SVG  template.HTML
	}
	var charts []chart
	for _, g := range []struct{ key, name string }{{MetricPass, "strict pass@1"}, {MetricD, "D (diagnosis)"}, {MetricW, "W (required tools)"},
		{MetricA, "A (action constraints)"}, {MetricH, "H (must-ask coverage)"}} {
		if len(streams.Conditions) > 0 {
			key := g.key
			charts = append(charts, chart{g.name, analysis.Curves(streams, g.name, func(m analysis.StageMean) float64 { return m.Metrics[key] }, 0, 1, key == MetricPass)})
		}
	}
	var b bytes.Buffer
	if err := sectionPage.Execute(&b, struct {
		*Report
		Charts []chart
	}{k, charts}); err != nil {
		return template.HTML(template.HTMLEscapeString("klinike section: " + err.Error()))
	}
	return template.HTML(b.String())
}

var sectionPage = template.Must(template.New("klinike").Funcs(template.FuncMap{
	"f3": func(x float64) string { return fmt.Sprintf("%.3f", x) },
	"opt": func(p *float64) string {
		if p == nil {
			return "–"
		}
		return fmt.Sprintf("%.3f", *p)
	},
	"tau": func(p *float64) string {
		if p == nil {
			return "– (one doctor)"
		}
		return fmt.Sprintf("%+.3f", *p)
	},
}).Parse(`<h2>KlinikeBench: strict pass@1 and gates</h2>
<p>Strict pass@1 is the mean of s = D·W·A·1[H = 1] over tasks (KlinikeBench §2.2, eq. 3): D the diagnosis matches the reference or an accepted alternative, W every required tool was called, A every argument-level constraint was met, H the share of must-ask topics the doctor explicitly raised. r_multi = (2D + W + A + H)/5 (appendix C, eq. 4). The chart mode has D only.</p>
<table><tr><th>condition</th><th>episodes</th><th>strict pass@1</th><th>D</th><th>W</th><th>A</th><th>H</th><th>r_multi</th></tr>
{{range .Conditions}}<tr><td>{{.Name}}{{if .Rescored}} (re-scored){{end}}</td><td>{{.N}}</td><td>{{opt .Pass1}}</td><td>{{f3 .D}}</td><td>{{opt .W}}</td><td>{{opt .A}}</td><td>{{opt .H}}</td><td>{{opt .RMulti}}</td></tr>
{{end}}</table>
{{if .Variants}}<h3>Substitutions and ablations</h3><p>Each variant against each doctor's baseline on the tasks both played: the change with a paired-bootstrap 95% interval, and Kendall's τ-b between the doctors' rankings under the baseline and the variant.</p>
<table><tr><th>variant</th><th>metric</th><th>doctor</th><th>n</th><th>baseline</th><th>variant</th><th>change [95% CI]</th><th>Kendall τ</th></tr>
{{range $v := .Variants}}{{range $i, $c := .Changes}}<tr><td>{{$v.Variant}}</td><td>{{$v.Metric}}</td><td>{{$c.Doctor}}</td><td>{{$c.N}}</td><td>{{f3 $c.Base}}</td><td>{{f3 $c.Variant}}</td><td>{{printf "%+.3f" $c.Delta}} [{{f3 $c.CI.Low}}, {{f3 $c.CI.High}}]</td><td>{{if eq $i 0}}{{tau $v.Tau}}{{end}}</td></tr>
{{end}}{{end}}</table>{{end}}
{{if .Charts}}<h3>Stage curves</h3><p>Stage means of strict pass@1 (with the bootstrap band of S, which is strict success) and of each gate.</p>
{{range .Charts}}<h4>{{.Name}}</h4>{{.SVG}}{{end}}{{end}}
`))
