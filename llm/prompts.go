package llm

import (
	"embed"

	"github.com/clinevo/clinevo/settings"
)

//go:embed prompts/*.tmpl
var promptFiles embed.FS

// TemplateVersions name the version of each role's prompt template; runs log them.
var TemplateVersions = map[string]string{
	"doctor": "doctor/2", "doctor_gp": "doctor_gp/1", "patient": "patient/3", "exam": "exam/1", "consultant": "consultant/1",
	"judge": "judge/1", "judge_grade": "judge_grade/1", "judge_dx": "judge_dx/1", "judge_tx": "judge_tx/1", "grader": "grader/3", "evolver": "evolver/1",
}

// legacyTemplates are the template versions of the benchmarks that do not
// declare theirs yet (Prompts). TODO(seam): each benchmark declares its own.
func legacyTemplates(profile, role string) []string {
	names := []string{role}
	switch {
	case role == "doctor" && profile == settings.GPAgent:
		names = []string{"doctor_gp"}
	case role == "judge" && profile == settings.MedInquire:
		names = []string{"judge_grade"}
	case role == "judge" && profile == settings.GPAgent:
		names = []string{"judge_dx", "judge_tx"}
	}
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, shared.Version(n))
	}
	return out
}

// shared are the shared roles' templates.
var shared = MustTemplates(promptFiles, "prompts", TemplateVersions)

// Render renders a shared role's system and user messages.
func Render(role string, system, user any) ([]Message, error) {
	return shared.Render(role, system, user)
}
