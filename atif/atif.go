// Package atif writes clinevo episodes as ATIF trajectories, the Agent
// Trajectory Interchange Format of Harbor (RFC 0001, v1.6): one trajectory
// an episode, the doctor as the agent, each of its actions a tool call and
// the environment's reply the call's observation.
//
// Field names and constraints follow Harbor's pydantic models
// (harbor/models/trajectories/*.py); internal/logschema/testdata names the
// pinned copy and holds the schema the tests validate against.
package atif

// SchemaVersion is the ATIF version the trajectories declare: the one the
// pinned models default to.
const SchemaVersion = "ATIF-v1.6"

// Trajectory is ATIF's root object: one agent run (an episode).
type Trajectory struct {
	SchemaVersion string         `json:"schema_version"`
	SessionID     string         `json:"session_id"`
	Agent         Agent          `json:"agent"`
	Steps         []Step         `json:"steps"`
	Notes         string         `json:"notes,omitempty"`
	FinalMetrics  *FinalMetrics  `json:"final_metrics,omitempty"`
	Extra         map[string]any `json:"extra,omitempty"`
}

// Agent is ATIF's AgentSchema: the agent system that played.
type Agent struct {
	Name      string         `json:"name"`
	Version   string         `json:"version"`
	ModelName string         `json:"model_name,omitempty"`
	Extra     map[string]any `json:"extra,omitempty"`
}

// Step is ATIF's StepObject: the opening message (source user) or one turn
// of the agent (its action, reasoning and what came back).
type Step struct {
	StepID           int            `json:"step_id"`
	Source           string         `json:"source"` // system | user | agent
	Message          string         `json:"message"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	ToolCalls        []Call         `json:"tool_calls,omitempty"`
	Observation      *Observation   `json:"observation,omitempty"`
	Extra            map[string]any `json:"extra,omitempty"`
}

// Call is ATIF's ToolCallSchema: one action of the agent (Call, not the
// schema's own name, which a benchmark's action kind also has).
type Call struct {
	ToolCallID   string         `json:"tool_call_id"`
	FunctionName string         `json:"function_name"`
	Arguments    map[string]any `json:"arguments"`
}

// Observation is ATIF's ObservationSchema: what the environment answered.
type Observation struct {
	Results []ObservationResult `json:"results"`
}

// ObservationResult is one answer, tied to the tool call it answers.
type ObservationResult struct {
	SourceCallID string `json:"source_call_id,omitempty"`
	Content      string `json:"content"`
}

// FinalMetrics is ATIF's FinalMetricsSchema: the episode's totals.
type FinalMetrics struct {
	TotalPromptTokens     int            `json:"total_prompt_tokens"`
	TotalCompletionTokens int            `json:"total_completion_tokens"`
	TotalCachedTokens     int            `json:"total_cached_tokens"`
	TotalCostUSD          float64        `json:"total_cost_usd"`
	TotalSteps            int            `json:"total_steps"`
	Extra                 map[string]any `json:"extra,omitempty"`
}
