package llm

import (
	"embed"
	"fmt"
	"slices"
	"strings"
	"text/template"

	"github.com/clinevo/clinevo/settings"
)

//go:embed prompts/*.tmpl
var promptFiles embed.FS

// TemplateVersions name the version of each role's prompt template; runs log them.
var TemplateVersions = map[string]string{
	"doctor": "doctor/2", "doctor_gp": "doctor_gp/1", "patient": "patient/3", "exam": "exam/1", "consultant": "consultant/1",
	"judge": "judge/1", "judge_grade": "judge_grade/1", "judge_dx": "judge_dx/1", "judge_tx": "judge_tx/1", "grader": "grader/3", "evolver": "evolver/1",
	"doctor_tools": "doctor_tools/1", "judge_mustask": "judge_mustask/1",
}

// ProfileTemplates names the template versions a role renders under a
// profile: the doctor's prompt and the judge's questions differ by benchmark
// (MedEvoEval's full judge; EvoClinician's 0–100 grade; GPAgentBench's Dx and
// Tx judges; KlinikeBench's diagnosis grade and must-ask verdicts).
func ProfileTemplates(profile, role string) []string {
	names := []string{role}
	switch {
	case role == "embeddings":
		return nil // no prompt
	case role == "doctor" && profile == settings.GPAgent:
		names = []string{"doctor_gp"}
	case role == "doctor" && profile == settings.Klinike:
		names = []string{"doctor_tools"}
	case role == "judge" && profile == settings.MedInquire:
		names = []string{"judge_grade"}
	case role == "judge" && profile == settings.GPAgent:
		names = []string{"judge_dx", "judge_tx"}
	case role == "judge" && profile == settings.Klinike:
		names = []string{"judge_grade", "judge_mustask"}
	}
	out := make([]string, 0, len(names))
	for _, n := range names {
		v, ok := TemplateVersions[n]
		if !ok {
			v = n + "/?" // no version: TestProfileTemplatesExist fails
		}
		out = append(out, v)
	}
	return out
}

var templates = func() map[string]*template.Template {
	funcs := template.FuncMap{
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
	out := map[string]*template.Template{}
	for role := range TemplateVersions {
		out[role] = template.Must(template.New(role).Funcs(funcs).ParseFS(promptFiles, "prompts/"+role+".tmpl"))
	}
	return out
}()

// Render renders a role's system and user messages.
func Render(role string, system, user any) ([]Message, error) {
	t, ok := templates[role]
	if !ok {
		return nil, fmt.Errorf("llm: no prompt template for role %q", role)
	}
	var s, u strings.Builder
	if err := t.ExecuteTemplate(&s, "system", system); err != nil {
		return nil, fmt.Errorf("llm: render %s system prompt: %w", role, err)
	}
	if err := t.ExecuteTemplate(&u, "user", user); err != nil {
		return nil, fmt.Errorf("llm: render %s user prompt: %w", role, err)
	}
	return []Message{System(strings.TrimSpace(s.String())), User(strings.TrimSpace(u.String()))}, nil
}
