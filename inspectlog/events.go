package inspectlog

import (
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/settings"
)

// EventHead are the fields every inspect event has (BaseEvent): its kind,
// when it happened, and its UUID.
type EventHead struct {
	Event        string  `json:"event"` // model | tool | info | score
	Timestamp    string  `json:"timestamp"`
	WorkingStart float64 `json:"working_start"`
	UUID         string  `json:"uuid"`
}

// ModelEvent is inspect's ModelEvent: one call of a role a model plays.
type ModelEvent struct {
	EventHead
	Model      string         `json:"model"`
	Role       string         `json:"role"`
	Input      []Message      `json:"input"`
	Tools      []any          `json:"tools"`
	ToolChoice string         `json:"tool_choice"` // auto | none
	Config     map[string]any `json:"config"`
	Output     Output         `json:"output"`
	Metadata   map[string]any `json:"metadata,omitempty"`
}

// ToolEvent is inspect's ToolEvent: a tool the doctor called (a benchmark
// whose events describe themselves as tool calls).
type ToolEvent struct {
	EventHead
	Type      string         `json:"type"` // "function"
	ID        string         `json:"id"`
	Function  string         `json:"function"`
	Arguments map[string]any `json:"arguments"`
	Result    string         `json:"result"`
	Events    []any          `json:"events"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// InfoEvent is inspect's InfoEvent: a turn of a built-in role, whose
// decision or answer is data, not a model call.
type InfoEvent struct {
	EventHead
	Source string         `json:"source"`
	Data   map[string]any `json:"data"`
}

// ScoreEvent is inspect's ScoreEvent: one of the episode's scores.
type ScoreEvent struct {
	EventHead
	Scorer       string   `json:"scorer"`
	Score        Score    `json:"score"`
	Target       []string `json:"target"`
	Intermediate bool     `json:"intermediate"`
}

// answeredBy is the role that answers a shared action; other actions are
// answered by their benchmark's environment (a tool, a finding).
var answeredBy = map[clinic.ActionKind]string{clinic.Ask: "patient", clinic.RequestTest: "exam", clinic.CallMDT: "consultant"}

// doctorInputNote says what a doctor model event's input is: clinevo keeps
// prompts out of its stores, so the input is the transcript the prompt was
// built from, not the prompt.
const doctorInputNote = "the episode's transcript before the turn; the doctor's prompt (instructions, rules, retrieved cards) is not recorded"

// transcript builds a sample's messages and events turn by turn. clinevo
// records no time of a turn: every event carries the run's creation time
// and working_start 0 (the episode's activity time is the sample's).
type transcript struct {
	b       bench.Benchmark
	set     settings.Settings
	episode string
	stamp   string
	msgs    []Message
	events  []any
}

// head is the head of the next event: its UUID the same for the same
// episode and position, so that a log exported twice is the same log.
func (tr *transcript) head(kind string) EventHead {
	return EventHead{Event: kind, Timestamp: tr.stamp, UUID: uuid.NewSHA1(uuid.NameSpaceURL, fmt.Appendf(nil, "clinevo:%s#%d", tr.episode, len(tr.events))).String()}
}

// model is the model playing role, "" for a built-in role.
func (tr *transcript) model(role string) string {
	if r := tr.set.Roles[role]; r.Backend == settings.OpenAI {
		return r.ProviderName() + "/" + r.Model
	}
	return ""
}

// turn adds a turn: the doctor's action (a model event, or an info event
// for a built-in doctor) and the environment's reply (a tool event, a model
// event of the answering role, or an info event).
func (tr *transcript) turn(ev clinic.Event) {
	d := bench.Describe(tr.b, ev)
	text := string(ev.Action)
	if d.Target != "" {
		text += ": " + d.Target
	}
	meta := map[string]any{"turn": ev.Turn, "status": string(ev.Status), "cost_usd": ev.Cost}
	if ev.LLMError {
		meta["llm_error"] = true
	}
	said := Message{Role: "assistant", Content: text, Source: "generate", Metadata: meta}
	if m := tr.model("doctor"); m != "" {
		choice := "none"
		if tr.set.Roles["doctor"].Format == "tools" {
			choice = "auto"
		}
		tr.events = append(tr.events, ModelEvent{EventHead: tr.head("model"), Model: m, Role: "doctor",
			Input: append([]Message(nil), tr.msgs...), Tools: []any{}, ToolChoice: choice, Config: map[string]any{},
			Output: reply(m, said), Metadata: map[string]any{"turn": ev.Turn, "input": doctorInputNote}})
	} else {
		tr.events = append(tr.events, InfoEvent{EventHead: tr.head("info"), Source: "clinevo/doctor",
			Data: map[string]any{"turn": ev.Turn, "action": string(ev.Action), "target": d.Target, "status": string(ev.Status)}})
	}
	tr.msgs = append(tr.msgs, said)
	if ev.Reply == "" || ev.Action == clinic.Finalize {
		return
	}
	tr.answer(ev, d, text)
	tr.msgs = append(tr.msgs, Message{Role: "user", Content: ev.Reply, Metadata: map[string]any{"turn": ev.Turn}})
}

// answer adds the event of the environment's reply to a turn.
func (tr *transcript) answer(ev clinic.Event, d bench.Description, asked string) {
	if d.Said == "tool" && d.Name != "" {
		args := map[string]any{}
		if d.Detail != "" && json.Unmarshal([]byte(d.Detail), &args) != nil {
			args = map[string]any{"raw": d.Detail} // arguments that are no JSON object, as the trace kept them
		}
		tr.events = append(tr.events, ToolEvent{EventHead: tr.head("tool"), Type: "function",
			ID: fmt.Sprintf("turn-%d", ev.Turn), Function: d.Name, Arguments: args, Result: ev.Reply, Events: []any{},
			Metadata: map[string]any{"turn": ev.Turn, "status": string(ev.Status)}})
		return
	}
	role := answeredBy[ev.Action]
	if m := tr.model(role); m != "" && !ev.Cached {
		tr.events = append(tr.events, ModelEvent{EventHead: tr.head("model"), Model: m, Role: role,
			Input: []Message{{Role: "user", Content: asked}}, Tools: []any{}, ToolChoice: "none", Config: map[string]any{},
			Output:   reply(m, Message{Role: "assistant", Content: ev.Reply, Source: "generate"}),
			Metadata: map[string]any{"turn": ev.Turn, "input": "the doctor's request; the role's prompt is not recorded"}})
		return
	}
	source := "clinevo/" + role
	if role == "" {
		source = "clinevo/environment"
	}
	tr.events = append(tr.events, InfoEvent{EventHead: tr.head("info"), Source: source,
		Data: map[string]any{"turn": ev.Turn, "reply": ev.Reply, "cached": ev.Cached}})
}

// scores adds a score event a score, in the log's order of scores.
func (tr *transcript) scores(names []string, scores map[string]Score, target []string) {
	for _, name := range names {
		sc, ok := scores[name]
		if !ok {
			continue
		}
		tr.events = append(tr.events, ScoreEvent{EventHead: tr.head("score"), Scorer: name, Score: sc, Target: target})
	}
}

// reply is a model's output holding one message.
func reply(model string, m Message) Output {
	return Output{Model: model, Completion: m.Content, Choices: []Choice{{Message: m, StopReason: "stop"}}}
}
