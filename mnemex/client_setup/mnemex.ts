// mnemex for OpenCode: memory context before each prompt, scoring after each turn.
// Installed by `mnemex init --opencode`; removed by `mnemex uninit`.
//
// - chat.message: POST the user's prompt to the gateway's get-context hook and
//   keep the answer (KNOWN CONTEXT, plus the scoring prompt on scoring turns).
// - experimental.chat.system.transform: add that text to the system prompt, so
//   nothing is written into the user's message (it never shows in the input box).
// - event session.idle: the assistant finished; POST its last answer to the stop
//   hook so the exchange is stored and the next prompt can ask for scoring.
//
// Every call has a hard timeout and fails open: a slow or stopped mnemex never
// blocks or breaks OpenCode. The gateway URL may be overridden with
// MNEMEX_GATEWAY_URL; MNEMEX_TOKEN is sent as a bearer token when set.
import type { Plugin } from "@opencode-ai/plugin"

const GATEWAY = (process.env.MNEMEX_GATEWAY_URL || "__MNEMEX_GATEWAY_URL__").replace(/\/+$/, "")
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
    if (process.env.MNEMEX_TOKEN) headers["Authorization"] = `Bearer ${process.env.MNEMEX_TOKEN}`
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
  return parts
    .filter((p) => p.type === "text" && typeof p.text === "string" && !p.synthetic)
    .map((p) => p.text as string)
    .join("\n")
}

export const MnemexPlugin: Plugin = async ({ client, directory }) => {
  const pending = new Map<string, string>()

  return {
    "chat.message": async (input, output) => {
      const prompt = textOf(output.parts as Array<{ type: string; text?: string; synthetic?: boolean }>)
      if (!prompt.trim()) return
      const reply = (await post("/api/hooks/get-context", {
        session_id: input.sessionID,
        prompt: prompt.slice(0, MAX_PROMPT_CHARS),
        cwd: directory,
      })) as ContextReply | undefined
      if (!reply) return
      let text = reply.context || ""
      if (reply.scoring_prompt && !text.includes(reply.scoring_prompt)) text = `${reply.scoring_prompt}\n\n${text}`
      if (text.trim()) pending.set(input.sessionID, text.slice(0, MAX_CONTEXT_CHARS))
    },

    "experimental.chat.system.transform": async (input, output) => {
      if (!input.sessionID) return
      const text = pending.get(input.sessionID)
      if (text) output.system.push(text)
    },

    event: async ({ event }) => {
      if (event.type !== "session.idle") return
      const sessionID = event.properties.sessionID
      pending.delete(sessionID)
      try {
        const reply = await client.session.messages({ path: { id: sessionID }, query: { limit: 20 } })
        const messages = reply.data ?? []
        const lastAssistant = [...messages].reverse().find((m) => m.info.role === "assistant")
        const lastUser = [...messages].reverse().find((m) => m.info.role === "user")
        if (!lastAssistant) return
        const answer = textOf(lastAssistant.parts as Array<{ type: string; text?: string; synthetic?: boolean }>)
        if (!answer.trim()) return
        const asked = lastUser ? textOf(lastUser.parts as Array<{ type: string; text?: string; synthetic?: boolean }>) : ""
        await post("/api/hooks/stop", {
          session_id: sessionID,
          cwd: directory,
          assistant_text: answer.slice(0, MAX_ANSWER_CHARS),
          user_text: asked.slice(0, MAX_PROMPT_CHARS),
        })
      } catch {
        // fail open
      }
    },
  }
}

