package gpagent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/gpagent"
	"github.com/clinevo/clinevo/benchmarks/gpagent/gptest"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// gpView is the view of GPAgentBench's workflow in the collecting state.
func gpView() clinic.DoctorView {
	return clinic.DoctorView{OpeningComplaint: "My head hurts.", Demographics: clinic.Demographics{Text: "30-year-old woman"}, MaxTurns: 10,
		Phase: "collecting_evidence", Actions: []string{"ASK", "BODY_EXAM", "REQUEST_TEST", "DIAGNOSE", "REFER"}, Catalog: []string{"ct head", "complete blood count"},
		Ext: gpagent.View{Masked: []string{"TREAT"}, ExamTargets: []string{"vital signs", "neurological"}}}
}

func tagsRole(s *settings.Role) { s.Format = llm.FormatTags }

// modelClient is a model role's client on the fake server, answered by the
// scripted GP roles (gptest) and the server's shared policies.
func modelClient(t *testing.T, srv *llmtest.Server, role string, mod func(*settings.Role)) *llm.Client {
	t.Helper()
	srv.Policy = gptest.Policy
	s := settings.Role{BaseURL: srv.BaseURL(), Model: "test-model", JSONMode: true, Timeout: settings.Duration(2 * time.Second), PricePrompt: 1, PriceCompletion: 2}
	if mod != nil {
		mod(&s)
	}
	c, err := llm.NewClient(role, s, llm.Options{})
	require.NoError(t, err)
	return c
}

// TestTagsFormat plays the doctor's tags format (GPAgentBench appendix C.1)
// against the fake server: valid replies as models write them are used at
// once, a real problem gets one repair request, and a reply still malformed
// after it is an llm_error turn.
func TestTagsFormat(t *testing.T) {
	tests := []struct {
		name     string
		replies  []string
		llmError bool
		calls    int
		want     clinic.DoctorOutput
		extra    int
	}{
		{"an ask", []string{"<think>Start with the history.</think>\n<action type=\"ask\">When did it start?</action>"}, false, 1,
			clinic.DoctorOutput{Action: clinic.Ask, Question: "When did it start?", Rationale: []string{"Start with the history."}}, 0},
		{"a refer with every field, urgency as records write it", []string{"<think>Red flags.</think><action type=\"refer\">\nDestination: Emergency Department\nUrgency: Emergent\nReason: thunderclap headache\n</action>"}, false, 1,
			gpagent.WithOutput(clinic.DoctorOutput{Action: gpagent.Refer, Rationale: []string{"Red flags."}}, gpagent.Output{Destination: "Emergency Department", Urgency: "emergency", Reason: "thunderclap headache"}), 0},
		{"prose around it, single quotes, a synonym, bold names, a run-on field, no closing tags", []string{"Sure, here you go.\n<think>I am fairly sure\n<action type='Diagnosis'>\n**diagnosis**: Migraine\nwithout aura\nRationale: unilateral throbbing"}, false, 1,
			clinic.DoctorOutput{Action: gpagent.Diagnose, Diagnosis: []string{"Migraine without aura"}, Rationale: []string{"I am fairly sure", "unilateral throbbing"}}, 0},
		{"the first action block counts, a field it does not have is counted", []string{"<think>x</think><action type=\"test\">\nTest: CT head\nReason: red flags\nPriority: high\n</action><action type=\"ask\">Anything else?</action>"}, false, 1,
			gpagent.WithOutput(clinic.DoctorOutput{Action: clinic.RequestTest, TestName: "CT head", Rationale: []string{"x"}}, gpagent.Output{Reason: "red flags"}), 1},
		{"a masked action is a valid reply: the environment charges it", []string{"<think>x</think><action type=\"treat\">\nPlan: rest\n</action>"}, false, 1,
			clinic.DoctorOutput{Action: gpagent.Treat, Plan: []string{"rest"}, Rationale: []string{"x"}}, 0},
		{"no action block, then valid", []string{"I think it is a migraine.", "<think>x</think><action type=\"ask\">Any aura?</action>"}, false, 2,
			clinic.DoctorOutput{Action: clinic.Ask, Question: "Any aura?", Rationale: []string{"x"}}, 0},
		{"an action outside the set, then valid", []string{"<action type=\"dance\">now</action>", "<action type=\"body_exam\">\nTarget: neurological\n</action>"}, false, 2,
			gpagent.WithOutput(clinic.DoctorOutput{Action: gpagent.BodyExam}, gpagent.Output{Target: "neurological"}), 0},
		{"a refer without urgency, then valid", []string{"<action type=\"refer\">\nDestination: Neurology\n</action>", "<action type=\"refer\">\nDestination: Neurology\nUrgency: urgent\n</action>"}, false, 2,
			gpagent.WithOutput(clinic.DoctorOutput{Action: gpagent.Refer}, gpagent.Output{Destination: "Neurology", Urgency: "urgent"}), 0},
		{"an urgency outside the set, then valid", []string{"<action type=\"refer\">\nDestination: ED\nUrgency: asap\n</action>", "<action type=\"ask\">Any fever?</action>"}, false, 2,
			clinic.DoctorOutput{Action: clinic.Ask, Question: "Any fever?"}, 0},
		{"malformed twice: an llm_error turn", []string{"no idea", "<action type=\"diagnose\">\nRationale: none\n</action>"}, true, 2, clinic.DoctorOutput{}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Script = func(n int, r llmtest.Request) *llmtest.Reply {
				if n < len(tc.replies) {
					return &llmtest.Reply{Status: 200, Content: tc.replies[n]}
				}
				return nil
			}
			var tally llm.Tally
			ctx := llm.WithMeter(context.Background(), &tally)
			dec, err := gpagent.ModelDoctor{C: modelClient(t, srv, "doctor", tagsRole)}.Decide(ctx, gpView())
			require.NoError(t, err)
			require.Equal(t, tc.llmError, dec.LLMError)
			reqs := srv.Requests()
			require.Len(t, reqs, tc.calls, "one repair request at most")
			for _, r := range reqs {
				require.NotContains(t, r.Body, "response_format", "a tags reply is not asked for as a JSON object")
				require.Contains(t, r.System, `<action type="NAME">`)
			}
			if tc.calls == 2 {
				require.Contains(t, reqs[1].User, "could not be used", "the repair request says what was wrong")
				require.Contains(t, reqs[1].User, "<think>")
			}
			require.Equal(t, tc.want, dec.Output)
			require.Equal(t, tc.extra, tally.ByRole()["doctor"].ExtraFields)
		})
	}
}

// TestGPEpisodeInBothFormats plays GP episodes with a model doctor in the
// tags and the JSON format: the fake doctor asks twice, diagnoses and treats.
// A doctor whose replies never parse gives llm_error turns up to the turn
// limit, where c_timeout is charged.
func TestGPEpisodeInBothFormats(t *testing.T) {
	c := gpCase(t, gpagent.PathwayManage, "")
	set := gpSettings()
	for _, format := range []string{llm.FormatTags, llm.FormatJSON} {
		t.Run(format, func(t *testing.T) {
			srv := llmtest.New(t)
			roles := runner.BuiltinRoles()
			roles.Doctor = llm.DoctorFor(gpagent.Benchmark{}, modelClient(t, srv, "doctor", func(s *settings.Role) { s.Format = format }))
			tr, err := runner.Play(context.Background(), c, runner.Deps{Bench: gpagent.Benchmark{}, Roles: roles, Settings: set}, runner.Meta{RunID: "r", EpisodeID: "e", Number: 1})
			require.NoError(t, err)
			require.Empty(t, tr.LLMErrorTurns)
			require.Equal(t, clinic.EndFinalized, tr.Termination)
			var actions []clinic.ActionKind
			for _, ev := range tr.Events {
				actions = append(actions, ev.Action)
			}
			require.Equal(t, []clinic.ActionKind{clinic.Ask, clinic.Ask, gpagent.Diagnose, gpagent.Treat}, actions)
			require.Equal(t, gpagent.PathwayManage, gpagent.EndingOf(tr.Final).Disposition)
			require.Equal(t, []string{"Migraine"}, tr.Final.Diagnosis)
			require.Len(t, srv.Requests(), 4, "no repair request")
		})
	}
	t.Run("never parses", func(t *testing.T) {
		srv := llmtest.New(t)
		srv.Script = func(int, llmtest.Request) *llmtest.Reply {
			return &llmtest.Reply{Status: 200, Content: "Migraine, I think."}
		}
		s := set.Clone()
		s.Episode.MaxTurns = 3
		roles := runner.BuiltinRoles()
		roles.Doctor = llm.DoctorFor(gpagent.Benchmark{}, modelClient(t, srv, "doctor", tagsRole))
		tr, err := runner.Play(context.Background(), c, runner.Deps{Bench: gpagent.Benchmark{}, Roles: roles, Settings: s}, runner.Meta{RunID: "r", EpisodeID: "e", Number: 1})
		require.NoError(t, err)
		require.Equal(t, []int{0, 1, 2}, tr.LLMErrorTurns)
		require.Equal(t, clinic.EndTurnLimit, tr.Termination)
		require.Equal(t, benchtest.Settings(gpagent.Benchmark{}).Episode.Ext["timeout_penalty"], gpagent.StepOfEvent(tr.Events[2]).Penalty, "c_timeout on the last step")
		require.Len(t, srv.Requests(), 6, "each turn: one request and one repair")
	})
}

// TestGPJudge checks the model judge's Dx and Tx against scripted replies,
// and its fallback to the rubric after a reply malformed twice.
func TestGPJudge(t *testing.T) {
	c := gpCase(t, gpagent.PathwayManage, "")
	srv := llmtest.New(t)
	var tally llm.Tally
	ctx := llm.WithMeter(context.Background(), &tally)
	j, ok := gpagent.Benchmark{}.ModelJudge(llm.Judge{C: modelClient(t, srv, "judge", nil), Fallback: grader.RubricJudge{W: settings.Default().Scoring}}, gpSettings()).(gpagent.Judge)
	require.True(t, ok, "the model judge asks the Dx and Tx questions")
	dx, err := j.JudgeDx(ctx, &c, "something else entirely")
	require.NoError(t, err)
	require.Equal(t, 1, dx, "the scripted judge says equivalent")
	tx, err := j.JudgeTx(ctx, &c, []string{"rest"})
	require.NoError(t, err)
	require.Equal(t, 0.5, tx)
	require.Contains(t, srv.Requests()[1].User, "Ground-truth treatment:")

	srv.Script = func(int, llmtest.Request) *llmtest.Reply {
		return &llmtest.Reply{Status: 200, Content: `{"score":0.7}`}
	}
	dx, err = j.JudgeDx(ctx, &c, c.Manager.Diagnosis.Name)
	require.NoError(t, err)
	require.Equal(t, 1, dx, "the rubric: the reference name is equivalent")
	require.Equal(t, 1, tally.ByRole()["judge_fallback"].Calls)
}

// TestGPDoctorPromptNeverLeaks plays GP cases with the built-in doctor and
// renders the model doctor's prompt, in both formats, before every turn: it
// never holds a fact, finding or result not yet revealed, the diagnosis, a
// red flag or a treatment the encounter did not reveal.
func TestGPDoctorPromptNeverLeaks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	set := gpSettings()
	p := gpagent.Benchmark{}
	cp, err := benchtest.Library(gpagent.Benchmark{}).Load("builtin:gp-heldout@7")
	require.NoError(t, err)
	n := 0
	for _, c := range cp.Cases {
		ep, err := p.Start(c, set, episode.BuiltinRoles(), nil)
		require.NoError(t, err)
		for !ep.Done() {
			v := ep.View(nil, nil)
			revealed := ep.Revealed()
			for _, format := range []string{llm.FormatTags, llm.FormatJSON} {
				msgs, err := gpagent.DoctorPrompt(v, format)
				require.NoError(t, err)
				prompt := msgs[0].Content + "\n" + msgs[1].Content
				for _, f := range c.Patient.Facts {
					if !strings.Contains(revealed, f.Text) {
						require.NotContains(t, prompt, f.Text, "%s: unrevealed fact %s", c.ID, f.ID)
					}
				}
				for _, f := range c.Exam.Findings {
					if !strings.Contains(revealed, f.Text) {
						require.NotContains(t, prompt, f.Text, "%s: unrevealed finding", c.ID)
					}
				}
				for _, tv := range c.Exam.Tests {
					if !strings.Contains(revealed, tv.Result) {
						require.NotContains(t, prompt, tv.Result, "%s: unrevealed result of %s", c.ID, tv.Name)
					}
				}
				for _, dx := range append([]string{c.Manager.Diagnosis.Name}, c.Manager.Diagnosis.Acceptable...) {
					if !textmatch.ContainsPhrase(revealed, dx) && !containsAny(gpagent.ViewOf(v).Diagnosis, dx) {
						require.False(t, textmatch.ContainsPhrase(prompt, dx), "%s: the diagnosis %q is in the prompt", c.ID, dx)
					}
				}
				for _, x := range append(append([]string(nil), c.Manager.Referral.RedFlags...), gpagent.ManagementOf(&c).Treatment...) {
					// Short items ("stool culture", "oxygen") are also names of targets.
					if len(strings.Fields(x)) >= 3 && !strings.Contains(strings.ToLower(revealed), strings.ToLower(x)) {
						require.NotContains(t, strings.ToLower(prompt), strings.ToLower(x), "%s: answer key in the prompt", c.ID)
					}
				}
			}
			dec, err := gpagent.Builtin{}.Decide(ctx, v)
			require.NoError(t, err)
			_, err = ep.Step(ctx, episode.StepInput{Output: dec.Output})
			require.NoError(t, err)
			n++
		}
	}
	t.Logf("%d GP doctor prompts checked in two formats", n)
}

func containsAny(xs []string, x string) bool {
	for _, s := range xs {
		if textmatch.ContainsPhrase(s, x) {
			return true
		}
	}
	return false
}
