package klinike

import (
	"context"
	"encoding/json"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/llm"
)

var _ llm.FormatCheck = Benchmark{}

// CheckFormat is roles check's probe of the doctor's function-calling
// format: one tiny request offering one tool, the reply read by readStep,
// the reader of every tool-calling step. A doctor in the JSON format is the
// shared JSON probe's.
func (Benchmark) CheckFormat(ctx context.Context, c *llm.Client) error {
	if c.Settings.Format != FormatTools {
		return llm.ErrNoOwnCheck
	}
	v := clinic.DoctorView{Actions: []string{string(ToolCall)}, Ext: View{Tools: []ToolSpec{{Name: "record_check",
		Description: "Record that the check reached you.", Parameters: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)}}}}
	req := c.Request([]llm.Message{llm.System(llm.CheckPromptPrefix + " a connectivity check. Call the function record_check with ok set to true."), llm.User("check")})
	req.ResponseFormat = nil
	req.Tools = functions(v)
	req.ToolChoice = "required"
	_, problem, err := c.Chat(ctx, req, func(m llm.Message) error {
		_, problem := readStep(m, v)
		return problem
	})
	if err != nil {
		return err
	}
	return problem
}
