package llm

import "embed"

//go:embed prompts/*.tmpl
var promptFiles embed.FS

// TemplateVersions name the version of each shared role's prompt template;
// runs log them. judge_grade is the 0–100 diagnosis grade (EvoClinician §3)
// that the benchmarks grading a diagnosis alone name (Prompts).
var TemplateVersions = map[string]string{
	"doctor": "doctor/4", "patient": "patient/3", "exam": "exam/1", "consultant": "consultant/1",
	"judge": "judge/1", "judge_grade": "judge_grade/1", "grader": "grader/3", "evolver": "evolver/1", "panel": "panel/1",
}

// shared are the shared roles' templates.
var shared = MustTemplates(promptFiles, "prompts", TemplateVersions)

// Render renders a shared role's system and user messages.
func Render(role string, system, user any) ([]Message, error) {
	return shared.Render(role, system, user)
}
