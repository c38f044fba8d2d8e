package llm

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"text/template"
)

// Templates are named prompt templates, each with the version runs log. A
// template file <name>.tmpl defines "system" and "user". The shared roles'
// templates are one set (prompts/); a benchmark ships its own in its folder.
type Templates struct {
	versions map[string]string
	parsed   map[string]*template.Template
}

// funcs are the functions every prompt template may call.
var funcs = template.FuncMap{
	"join": strings.Join,
	"add":  func(a, b int) int { return a + b },
	"has":  slices.Contains[[]string],
	"clip": func(s string, n int) string {
		if len(s) <= n {
			return s
		}
		return s[:n] + "…"
	},
}

// NewTemplates parses <name>.tmpl of fsys (under dir) for every name of
// versions.
func NewTemplates(fsys fs.FS, dir string, versions map[string]string) (*Templates, error) {
	t := &Templates{versions: versions, parsed: map[string]*template.Template{}}
	for name := range versions {
		p, err := template.New(name).Funcs(funcs).ParseFS(fsys, dir+"/"+name+".tmpl")
		if err != nil {
			return nil, fmt.Errorf("llm: template %s: %w", name, err)
		}
		t.parsed[name] = p
	}
	return t, nil
}

// MustTemplates is NewTemplates for templates embedded in the binary, where
// a parse error is a defect the package's tests find.
func MustTemplates(fsys fs.FS, dir string, versions map[string]string) *Templates {
	t, err := NewTemplates(fsys, dir, versions)
	if err != nil {
		panic(err)
	}
	return t
}

// Version is a template's version, "name/?" for one the set does not have.
func (t *Templates) Version(name string) string {
	if v, ok := t.versions[name]; ok {
		return v
	}
	return name + "/?"
}

// Has reports whether the set has a template.
func (t *Templates) Has(name string) bool { _, ok := t.parsed[name]; return ok }

// Render renders a template's system and user messages.
func (t *Templates) Render(name string, system, user any) ([]Message, error) {
	p, ok := t.parsed[name]
	if !ok {
		return nil, fmt.Errorf("llm: no prompt template %q", name)
	}
	var s, u strings.Builder
	if err := p.ExecuteTemplate(&s, "system", system); err != nil {
		return nil, fmt.Errorf("llm: render %s system prompt: %w", name, err)
	}
	if err := p.ExecuteTemplate(&u, "user", user); err != nil {
		return nil, fmt.Errorf("llm: render %s user prompt: %w", name, err)
	}
	return []Message{System(strings.TrimSpace(s.String())), User(strings.TrimSpace(u.String()))}, nil
}
