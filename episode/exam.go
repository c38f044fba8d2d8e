package episode

import (
	"context"
	"strings"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
)

// ExamService resolves a test request against the catalog and the exam view.
type ExamService interface {
	// Resolve maps a free-text request to a catalog item. It never produces a
	// result: result text always comes from the exam view.
	Resolve(ctx context.Context, request string, cat *catalog.Catalog) (catalog.Item, catalog.Match, error)
}

// BuiltinExam resolves requests by exact name or alias after normalisation.
type BuiltinExam struct{}

var _ ExamService = BuiltinExam{}

// Resolve looks the request up in the catalog.
func (BuiltinExam) Resolve(_ context.Context, request string, cat *catalog.Catalog) (catalog.Item, catalog.Match, error) {
	it, m := cat.Lookup(request)
	return it, m, nil
}

// CaseCatalog is the catalog one case is served from: the built-in items plus the
// case's own test names and aliases, priced by catalog.Infer.
func CaseCatalog(c *clinic.Case) *catalog.Catalog {
	var extra []catalog.Item
	for _, t := range c.Exam.Tests {
		extra = append(extra, catalog.Item{Name: t.Name, Aliases: t.Aliases, Category: catalog.Infer(t.Name)})
	}
	for _, n := range c.Exam.Catalog {
		extra = append(extra, catalog.Item{Name: n, Category: catalog.Infer(n)})
	}
	return catalog.Default().Extend(extra)
}

// examResult returns the stored text for an item of this case, or false when the
// case holds none. Physical examination items read the findings; no text is invented.
func examResult(c *clinic.Case, it catalog.Item) (string, bool) {
	if it.Free() {
		if it.Name == catalog.PhysicalKey {
			var parts []string
			for _, f := range c.Exam.Findings {
				parts = append(parts, f.System+": "+f.Text)
			}
			if len(parts) == 0 {
				return "", false
			}
			return strings.Join(parts, "\n"), true
		}
		sys := strings.TrimSuffix(it.Name, " examination")
		for _, f := range c.Exam.Findings {
			if f.System == sys {
				return f.Text, true
			}
		}
		return "No abnormality recorded on " + it.Name + ".", true
	}
	for _, t := range c.Exam.Tests {
		if t.Name == it.Name {
			return t.Result, true
		}
	}
	return "", false
}
