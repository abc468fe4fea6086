// mnemex for OpenCode: memory context before each prompt, scoring after each turn.
// Installed by `mnemex init --client opencode`; removed by `mnemex uninit`.
//
// - chat.message: POST the user's prompt to the gateway's get-context hook and
//   keep the answer (the scoring prompt on scoring turns, then KNOWN CONTEXT)
//   for that user message.
// - experimental.chat.messages.transform: before each model call of the agent
//   loop, attach the kept text to its user message as a synthetic text part.
//   So the block travels with the user's message, once: later model calls of
//   the turn see the same message and are not asked to score again; the system
//   prompt stays byte-identical from prompt to prompt, so providers' prefix
//   caches keep working; title generation (the small model), which does not
//   run this transform, never sees memories; and nothing is written into the
//   user's message in storage or the input box. A message's block is kept for
//   as long as this OpenCode process runs, so the history a model sees stays
//   the same from call to call.
// - event session.status (idle), or session.idle on older OpenCode: the
//   assistant finished; POST its last answer to the stop hook, once per answer,
//   so the exchange is stored and the next prompt can ask for scoring.
//
// Every call has a hard timeout and fails open: a slow or stopped mnemex never
// blocks or breaks OpenCode. The gateway and token come from OpenCode's
// environment (MNEMEX_GATEWAY_URL, MNEMEX_TOKEN) when set, else from the
// connection file `mnemex init` wrote for the stack it was configured for.
import { readFileSync } from "node:fs"
import type { Plugin } from "@opencode-ai/plugin"

function connectionEnv(): Record<string, string> {
  try {
    const data = JSON.parse(readFileSync("__MNEMEX_CONNECTION_FILE__", "utf8")) as { env?: Record<string, string> }
    return data.env ?? {}
  } catch {
    return {} // no file (or unreadable): the URL written in at init time still applies
  }
}

// An environment that names its own home describes its own stack and is never mixed with the file.
function setting(name: string, recorded: Record<string, string>): string {
  if (process.env.MNEMEX_HOME) return process.env[name] ?? ""
  return process.env[name] || recorded[name] || ""
}

const RECORDED = connectionEnv()
const ADDR = setting("MNEMEX_GATEWAY_ADDR", RECORDED).replace("0.0.0.0", "127.0.0.1")
const PORT = setting("MNEMEX_GATEWAY_PORT", RECORDED)
const GATEWAY = (
  setting("MNEMEX_GATEWAY_URL", RECORDED) ||
  (ADDR ? `http://${ADDR}` : PORT ? `http://127.0.0.1:${PORT}` : "__MNEMEX_GATEWAY_URL__")
).replace(/\/+$/, "")
const TOKEN = setting("MNEMEX_TOKEN", RECORDED)
const TIMEOUT_MS = Number(process.env.MNEMEX_HOOK_TIMEOUT_MS || 2000)
const MAX_PROMPT_CHARS = 20000
const MAX_ANSWER_CHARS = 100000
const MAX_CONTEXT_CHARS = 10000

type ContextReply = { context?: string; scoring_prompt?: string; scoring_required?: boolean }

async function post(path: string, body: Record<string, unknown>): Promise<unknown> {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), TIMEOUT_MS)
  try {
    const headers: Record<string, string> = { "Content-Type": "application/json" }
    if (TOKEN) headers["Authorization"] = `Bearer ${TOKEN}`
    const reply = await fetch(GATEWAY + path, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal: controller.signal,
    })
    if (!reply.ok) return undefined
    return await reply.json()
  } catch {
    return undefined // fail open: no memory this turn, never an error in OpenCode
  } finally {
    clearTimeout(timer)
  }
}

function textOf(parts: ReadonlyArray<{ type: string; text?: string; synthetic?: boolean }>): string {
  // the user's own words only: synthetic parts are attachments and mnemex's own context
  return parts
    .filter((p) => p.type === "text" && typeof p.text === "string" && !p.synthetic)
    .map((p) => p.text as string)
    .join("\n")
}

type TextLike = { id?: string; type: string; text?: string; synthetic?: boolean }
type MessageLike = { info: { id: string; role: string; sessionID?: string }; parts: TextLike[] }

// OpenCode tool ids -> the tool names mnemex's observations use; other tools are not reported.
const TOOL_NAMES: Record<string, string> = { bash: "Bash", edit: "Edit", write: "Write", patch: "Edit" }
const MAX_TOOL_OUTPUT_CHARS = 4000

const MAX_KEPT = 500 // user messages whose block is kept (oldest dropped first)
const PART_SUFFIX = "mnemex"

function idleSession(event: { type: string; properties?: unknown }): string | undefined {
  const properties = (event.properties ?? {}) as { sessionID?: string; status?: { type?: string } }
  if (event.type === "session.status" && properties.status?.type === "idle") return properties.sessionID
  if (event.type === "session.idle") return properties.sessionID
  return undefined
}

// How the gateway names this client on turns (the viewer shows which client wrote or read a memory).
const CLIENT_NAME = "opencode"

export const MnemexPlugin: Plugin = async ({ client, directory }) => {
  const blocks = new Map<string, string>() // user message id -> the text mnemex attached to it
  const reported = new Map<string, string>() // session id -> id of the last answer sent to the stop hook

  return {
    "chat.message": async (input, output) => {
      const prompt = textOf(output.parts as TextLike[])
      const messageID = (output.message as { id?: string }).id ?? input.messageID
      if (!prompt.trim() || !messageID) return
      const reply = (await post("/api/hooks/get-context", {
        session_id: input.sessionID,
        prompt: prompt.slice(0, MAX_PROMPT_CHARS),
        cwd: directory,
        client: CLIENT_NAME,
      })) as ContextReply | undefined
      if (!reply) return
      let text = reply.context || ""
      if (reply.scoring_prompt && !text.includes(reply.scoring_prompt)) text = `${reply.scoring_prompt}\n\n${text}`
      if (!text.trim()) return
      blocks.set(messageID, text.slice(0, MAX_CONTEXT_CHARS))
      while (blocks.size > MAX_KEPT) blocks.delete(blocks.keys().next().value as string)
    },

    "experimental.chat.messages.transform": async (_input, output) => {
      for (const message of output.messages as unknown as MessageLike[]) {
        const text = message.info.role === "user" ? blocks.get(message.info.id) : undefined
        if (!text) continue
        const last = message.parts[message.parts.length - 1]
        const id = `${last?.id ?? `prt_${message.info.id}`}${PART_SUFFIX}`
        if (message.parts.some((part) => part.id?.endsWith(PART_SUFFIX))) continue
        message.parts.push({
          id,
          sessionID: message.info.sessionID,
          messageID: message.info.id,
          type: "text",
          text,
          synthetic: true,
        } as TextLike)
      }
    },

    // Tool outcomes (the equivalent of Claude Code's PostToolUse / PostToolUseFailure): bash
    // reports its exit code in metadata.exit, so a failing build, migration or git command
    // reaches the knowledge graph with its error output.
    "tool.execute.after": async (input, output) => {
      const name = TOOL_NAMES[input.tool]
      if (!name) return
      const args = ((input as { args?: Record<string, unknown> }).args ?? {}) as Record<string, unknown>
      const meta = ((output as { metadata?: unknown }).metadata ?? {}) as { exit?: unknown }
      const text = String((output as { output?: unknown }).output ?? "")
      const response: Record<string, unknown> = { output: text.slice(-MAX_TOOL_OUTPUT_CHARS) }
      if (typeof meta.exit === "number") response.exit_code = meta.exit
      await post("/api/hooks/post-tool-use", {
        session_id: input.sessionID,
        cwd: directory,
        tool_name: name,
        tool_input: { command: args.command, file_path: args.filePath ?? args.file_path, description: args.description },
        tool_response: response,
      })
    },

    event: async ({ event }) => {
      const sessionID = idleSession(event as { type: string; properties?: unknown })
      if (!sessionID) return
      try {
        const reply = await client.session.messages({ path: { id: sessionID }, query: { limit: 20 } })
        const messages = reply.data ?? []
        const lastAssistant = [...messages].reverse().find((m) => m.info.role === "assistant")
        const lastUser = [...messages].reverse().find((m) => m.info.role === "user")
        if (!lastAssistant || reported.get(sessionID) === lastAssistant.info.id) return
        const answer = textOf(lastAssistant.parts as TextLike[])
        if (!answer.trim()) return
        reported.set(sessionID, lastAssistant.info.id)
        const asked = lastUser ? textOf(lastUser.parts as TextLike[]) : ""
        await post("/api/hooks/stop", {
          session_id: sessionID,
          cwd: directory,
          assistant_text: answer.slice(0, MAX_ANSWER_CHARS),
          user_text: asked.slice(0, MAX_PROMPT_CHARS),
          client: CLIENT_NAME,
        })
      } catch {
        // fail open
      }
    },
  }
}
