package view

import (
	"fmt"
	"html/template"
	"net/url"
	"strings"

	"github.com/clinevo/clinevo/internal/textfmt"
)

// funcs are the templates' helpers: number formats and link building.
var funcs = template.FuncMap{
	"f2": func(x float64) string { return fmt.Sprintf("%.2f", x) },
	"f3": func(x float64) string { return fmt.Sprintf("%.3f", x) },
	"f4": func(x float64) string { return fmt.Sprintf("%.4f", x) },
	"f0": func(x float64) string { return fmt.Sprintf("%.0f", x) },
	// sf3 is a difference with its sign: +0.120, -0.080.
	"sf3": func(x float64) string { return fmt.Sprintf("%+.3f", x) },
	// g3 is a p-value to three significant digits.
	"g3":   func(x float64) string { return fmt.Sprintf("%.3g", x) },
	"join": strings.Join,
	// secs spells seconds as 1h02m, 3m05s or 42s.
	"secs": textfmt.Seconds,
	// slug is a status as a class name: "not started" is s-not-started.
	"slug": func(s string) string { return strings.ReplaceAll(s, " ", "-") },
	"add":  func(a, b int) int { return a + b },
	// at is xs[i], or "" past its end (an episode's labels may be fewer
	// than its actions: an evaluation episode is not graded).
	"at": func(xs []string, i int) string {
		if i < 0 || i >= len(xs) {
			return ""
		}
		return xs[i]
	},
	"opt": func(p *float64) string {
		if p == nil {
			return "–"
		}
		return fmt.Sprintf("%.3f", *p)
	},
	// short is a card ID's first 8 characters: enough to tell cards apart on a page.
	"short": func(id string) string {
		if len(id) <= 8 {
			return id
		}
		return id[:8]
	},
}

// urlQuery escapes a value for a query parameter.
func urlQuery(s string) string { return url.QueryEscape(s) }
