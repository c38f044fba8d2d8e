package llm

import (
	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// DoctorFormat is a benchmark's model doctor: the prompt it renders from the
// benchmark's own view and the reply format it reads (JSON, tags, tool
// calls). A capability: a benchmark without one plays the shared doctor
// prompt (Doctor).
type DoctorFormat interface {
	ModelDoctor(c *Client) actor.Doctor
}

// DoctorFor is b's model doctor on c.
func DoctorFor(b any, c *Client) actor.Doctor {
	if f, ok := b.(DoctorFormat); ok {
		return f.ModelDoctor(c)
	}
	return Doctor{C: c}
}

// JudgeFormat is a benchmark's model judge: the questions it asks beside the
// shared ones (a capability). j is the run's shared model judge, whose
// fallback is the rubric; the benchmark's judge falls back to its own rubric
// for its own questions.
type JudgeFormat interface {
	ModelJudge(j Judge, s settings.Settings) grader.Judge
}

// JudgeFor is b's model judge built on the shared one.
func JudgeFor(b any, j Judge, s settings.Settings) grader.Judge {
	if f, ok := b.(JudgeFormat); ok {
		return f.ModelJudge(j, s)
	}
	return j
}

// Prompts names the prompt templates (with their versions, "doctor_gp/1")
// a benchmark's role renders, for run logs; nil for a role that renders the
// shared template.
type Prompts interface {
	Templates(role string) []string
}

// RoleTemplates are the template versions role renders under benchmark b.
func RoleTemplates(b any, role string) []string {
	if role == "embeddings" {
		return nil // no prompt
	}
	if p, ok := b.(Prompts); ok {
		if ts := p.Templates(role); ts != nil {
			return ts
		}
	}
	return []string{shared.Version(role)}
}

// RoleMaker builds the model-backed form of a role a benchmark adds
// (bench.Roles) on the role's client (a capability): what Start finds in
// episode.Roles.Extra under the role's name.
type RoleMaker interface {
	ModelRole(name string, c *Client) (any, error)
}
