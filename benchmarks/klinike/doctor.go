package klinike

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/llm"
)

//go:embed prompts/*.tmpl
var promptFiles embed.FS

// prompts are the model doctor's and the must-ask judge's templates, with
// the versions runs log.
var prompts = llm.MustTemplates(promptFiles, "prompts", map[string]string{
	"doctor_tools": "doctor_tools/1", "judge_mustask": "judge_mustask/1"})

var _ llm.Prompts = Benchmark{}

// Templates are the doctor's prompt and the judge's two: the shared
// diagnosis grade and the must-ask verdicts.
func (Benchmark) Templates(role string) []string {
	switch role {
	case "doctor":
		return []string{prompts.Version("doctor_tools")}
	case "judge":
		return []string{llm.TemplateVersions["judge_grade"], prompts.Version("judge_mustask")}
	}
	return nil
}

// FormatTools is the doctor's reply format by OpenAI function calling
// (roles.doctor.format tools): the exposed tools go to the endpoint as
// function definitions and a reply is a tool call, or plain text said to
// the patient. Any other format is one JSON object a reply.
const FormatTools = "tools"

// RepairToolsPrompt is the one repair request of a function-calling reply.
const RepairToolsPrompt = "Your previous reply could not be used: %s. Reply again: call one of the tools, or write only your question for the patient."

var _ llm.DoctorFormat = Benchmark{}

// ModelDoctor is the model doctor of the tool sandbox (ModelDoctor).
func (Benchmark) ModelDoctor(c *llm.Client) actor.Doctor { return ModelDoctor{C: c} }

// ModelDoctor is a model doctor in the tool sandbox. It renders only the
// DoctorView and the benchmark's View in it.
type ModelDoctor struct{ C *llm.Client }

var _ actor.Doctor = ModelDoctor{}

// toolsPrompt is the sandbox prompt's data: the shared view with the
// benchmark's part beside it (its fields shadow the shared view's).
type toolsPrompt struct {
	clinic.DoctorView
	Phase            string
	Tools            []ToolSpec
	ToolResults      []ToolResult
	StepsLeft        int
	PatientTurnsLeft int
	Functions        bool // the tools go as function definitions, not in the text
}

func promptOf(v clinic.DoctorView, functions bool) toolsPrompt {
	kv := ViewOf(v)
	return toolsPrompt{DoctorView: v, Phase: kv.Phase, Tools: kv.Tools, ToolResults: kv.ToolResults, StepsLeft: kv.StepsLeft,
		PatientTurnsLeft: kv.PatientTurnsLeft, Functions: functions}
}

// stepReply is a JSON step: the shared output (whose decoding keeps the
// call's members in its Ext) and the call's members, named here so that
// they are not counted as fields the reply should not have.
type stepReply struct {
	clinic.DoctorOutput
	CallFields
}

// Decide asks the model for the next step: by function calling when
// roles.doctor.format is tools, else as one JSON object naming the action,
// the tool and its arguments. A tool name the view does not offer is a reply
// worth one repair request; arguments that break the tool's schema are not:
// the sandbox refuses the call and tells the doctor why.
func (d ModelDoctor) Decide(ctx context.Context, v clinic.DoctorView) (actor.Decision, error) {
	functions := d.C.Settings.Format == FormatTools
	p := promptOf(v, functions)
	msgs, err := prompts.Render("doctor_tools", p, p)
	if err != nil {
		return actor.Decision{}, err
	}
	if functions {
		return d.functionCall(ctx, v, msgs)
	}
	var r stepReply
	err = d.C.JSON(ctx, msgs, &r, func() error { return checkStep(&r.DoctorOutput, v) })
	return llm.Decided(r.DoctorOutput, err)
}

// checkStep validates a JSON step against the view: an allowed action, a
// question for ASK, an offered tool and arguments that are a JSON object
// (or a string holding one, as some models send them) for TOOL_CALL.
func checkStep(out *clinic.DoctorOutput, v clinic.DoctorView) error {
	if err := checkAction(out, v); err != nil {
		return err
	}
	switch out.Action {
	case clinic.Ask:
		if strings.TrimSpace(out.Question) == "" {
			return errors.New("ASK needs a question")
		}
	case ToolCall:
		c, err := checkCall(CallOf(out.Ext), v)
		if err != nil {
			return err
		}
		out.Ext = WithCall(out.Ext, c)
	}
	return nil
}

// checkAction reads the action as one the view allows.
func checkAction(out *clinic.DoctorOutput, v clinic.DoctorView) error {
	action, ok := llm.Enum(string(out.Action), v.Actions...)
	if !ok {
		return fmt.Errorf("action %q is not one of %s", out.Action, strings.Join(v.Actions, ", "))
	}
	out.Action = clinic.ActionKind(action)
	return nil
}

// checkCall reads a call's tool as one the view offers and its arguments as
// a JSON object.
func checkCall(c CallFields, v clinic.DoctorView) (CallFields, error) {
	tool, ok := llm.Enum(c.Tool, toolNames(v)...)
	if !ok {
		return CallFields{}, fmt.Errorf("tool %q is not one of %s", c.Tool, strings.Join(toolNames(v), ", "))
	}
	args, err := argumentsObject(c.Arguments)
	if err != nil {
		return CallFields{}, err
	}
	return CallFields{Tool: tool, Arguments: args}, nil
}

// argumentsObject reads arguments as a JSON object: absent means {}, a JSON
// string holding an object is unwrapped; anything else is a problem.
func argumentsObject(raw json.RawMessage) (json.RawMessage, error) {
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}"), nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(strings.TrimSpace(s))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, errors.New("arguments must be a JSON object")
	}
	return raw, nil
}

func toolNames(v clinic.DoctorView) []string {
	tools := ViewOf(v).Tools
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}

// functions are the view's tools as OpenAI function definitions.
func functions(v clinic.DoctorView) []openai.Tool {
	tools := ViewOf(v).Tools
	out := make([]openai.Tool, len(tools))
	for i, t := range tools {
		out[i] = openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: t.Name, Description: t.Description,
			Parameters: t.Parameters}}
	}
	return out
}

// functionCall makes the step by function calling, with the same one-repair
// policy as JSON replies: the repair request answers each tool call of the
// rejected reply with the problem, as the protocol asks, then says what to do.
func (d ModelDoctor) functionCall(ctx context.Context, v clinic.DoctorView, msgs []llm.Message) (actor.Decision, error) {
	req := d.C.Request(msgs)
	req.ResponseFormat = nil // the patient is spoken to in plain text
	req.Tools = functions(v)
	if !slices.Contains(v.Actions, string(clinic.Ask)) {
		req.ToolChoice = "required"
	}
	var out clinic.DoctorOutput
	accept := func(m llm.Message) error {
		var problem error
		out, problem = readStep(m, v)
		return problem
	}
	msg, problem, err := d.C.Chat(ctx, req, accept)
	if err != nil {
		return actor.Decision{}, err
	}
	if problem == nil {
		return actor.Decision{Output: out}, nil
	}
	repair := append(append([]llm.Message(nil), msgs...), llm.Message{Role: openai.ChatMessageRoleAssistant, Content: msg.Content, ToolCalls: msg.ToolCalls})
	for _, tc := range msg.ToolCalls {
		repair = append(repair, llm.Message{Role: openai.ChatMessageRoleTool, ToolCallID: tc.ID, Content: "not executed: " + problem.Error()})
	}
	req.Messages = append(repair, llm.User(fmt.Sprintf(RepairToolsPrompt, problem)))
	if _, problem, err = d.C.Chat(ctx, req, accept); err != nil {
		return actor.Decision{}, err
	}
	if problem != nil {
		return actor.Decision{LLMError: true}, nil
	}
	return actor.Decision{Output: out}, nil
}

// readStep reads a function-calling reply: its first tool call (one step a
// reply; later calls are not run), or, without one, its text as a question
// to the patient.
func readStep(msg llm.Message, v clinic.DoctorView) (clinic.DoctorOutput, error) {
	text := strings.TrimSpace(msg.Content)
	if len(msg.ToolCalls) > 0 {
		f := msg.ToolCalls[0].Function
		out := clinic.DoctorOutput{Action: ToolCall}
		if text != "" {
			out.Rationale = []string{text}
		}
		if err := checkAction(&out, v); err != nil {
			return out, err
		}
		c, err := checkCall(CallFields{Tool: f.Name, Arguments: json.RawMessage(f.Arguments)}, v)
		if err != nil {
			return out, err
		}
		out.Ext = WithCall(nil, c)
		return out, nil
	}
	if text == "" {
		return clinic.DoctorOutput{}, errors.New("the reply has neither a tool call nor a question")
	}
	if !slices.Contains(v.Actions, string(clinic.Ask)) {
		return clinic.DoctorOutput{}, fmt.Errorf("no question can be asked now: call one of %s", strings.Join(toolNames(v), ", "))
	}
	return clinic.DoctorOutput{Action: clinic.Ask, Question: text, Utterance: text}, nil
}
