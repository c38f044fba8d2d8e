package analysis

import (
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/bench"
)

// Glossary is what the letters and metric names on a page mean for one
// benchmark, in its own declarations (bench.Metric): the shared scores S, U,
// T, E and R as it defines them, then its headline metrics.
type Glossary struct {
	Benchmark string `json:"benchmark"`
	Terms     []Term `json:"terms"`
}

// Term is one entry of a glossary.
type Term struct {
	Name  string `json:"name"`  // the metric's key
	Title string `json:"title"` // how the pages print it
	Doc   string `json:"doc"`   // its definition, citing the paper
	Range string `json:"range"` // its bounds and which way is better
}

// glossaryShared are the shared scores every page shows by their letter.
var glossaryShared = []string{"s", "u", "t", "e", "r"}

// Glossaries are the glossaries of benchmarks bs, once each in the order
// first named; a nil benchmark (one this build lacks) has none.
func Glossaries(bs ...bench.Benchmark) []Glossary {
	var out []Glossary
	seen := map[string]bool{}
	for _, b := range bs {
		if b == nil || seen[b.Name()] {
			continue
		}
		seen[b.Name()] = true
		g := Glossary{Benchmark: b.Name()}
		ms := b.Metrics()
		for _, name := range glossaryShared {
			if i := slices.IndexFunc(ms, func(m bench.Metric) bool { return m.Shared && m.Name == name }); i >= 0 {
				g.Terms = append(g.Terms, termOf(ms[i]))
			}
		}
		for _, m := range ms {
			if m.Headline && !(m.Shared && slices.Contains(glossaryShared, m.Name)) {
				g.Terms = append(g.Terms, termOf(m))
			}
		}
		out = append(out, g)
	}
	return out
}

func termOf(m bench.Metric) Term {
	hi := "∞"
	if !math.IsInf(m.Max, 1) {
		hi = trimFloat(m.Max)
	}
	r := "[" + trimFloat(m.Min) + ", " + hi + "], "
	if m.Direction == bench.LowerBetter {
		r += "lower is better"
	} else {
		r += "higher is better"
	}
	return Term{Name: m.Name, Title: m.Title, Doc: m.Doc, Range: r}
}

// trimFloat prints a bound without trailing zeros.
func trimFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// GlossaryHTML renders glossaries as the report and the viewer show them: a
// collapsed section per benchmark.
func GlossaryHTML(gs []Glossary) template.HTML {
	if len(gs) == 0 {
		return ""
	}
	var b strings.Builder
	if err := glossaryPage.Execute(&b, gs); err != nil {
		return template.HTML("<p>glossary: " + template.HTMLEscapeString(err.Error()) + "</p>")
	}
	return template.HTML(b.String())
}

var glossaryPage = template.Must(template.New("glossary").Parse(`<section class="glossary"><h2 id="glossary">Glossary</h2>
{{range .}}<details open><summary>{{.Benchmark}}: the scores as this benchmark defines them</summary><table class="list glossary-terms"><tr><th>name</th><th>meaning</th><th>range</th></tr>
{{range .Terms}}<tr class="term" data-term="{{.Name}}"><td><b>{{.Title}}</b></td><td class="text">{{.Doc}}</td><td>{{.Range}}</td></tr>
{{end}}</table></details>
{{end}}</section>`))
