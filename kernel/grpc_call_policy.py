"""What the scaffold does around every RPC of a service, so servicers only translate.

- **Deadlines.** A call whose deadline has already passed when its handler
  would start is answered DEADLINE_EXCEEDED without doing the work.
- **Errors.** Each service declares one ``ErrorTable``: its domain exception
  classes and the status code each maps to, e.g.
  ``{InvalidRequest: INVALID_ARGUMENT, MemoryNotFound: NOT_FOUND}``. A handler
  raising one of them is aborted with that code and the exception's message,
  which says what is wrong and how to fix it (quoted values cut to 80
  characters by ``kernel.error_detail.bounded``). Anything else propagates (the
  caller sees UNKNOWN and the server logs the traceback).

``CallPolicyInterceptor`` applies both to unary and streaming handlers alike;
``kernel.grpc_hosting.start_service`` installs it.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import NoReturn, TypeVar, cast

import grpc

from kernel.error_detail import bounded
from kernel.store_health import storage_problem

ErrorTable = Mapping[type[Exception], grpc.StatusCode]
Request = TypeVar("Request")
Response = TypeVar("Response")
# The context grpc.aio hands a handler; the stubs make it generic, grpc itself does not.
Context = grpc.aio.ServicerContext[object, object]
# What a handler's behaviour receives first: one request, or an iterator of them when the call streams them.
Received = TypeVar("Received")

# The health and reflection services are the library's; they keep their own behaviour.
_LIBRARY_PREFIXES = ("/grpc.health.v1.", "/grpc.reflection.")


def status_for(exc: BaseException, errors: ErrorTable) -> grpc.StatusCode | None:
    """The code ``errors`` maps ``exc`` to (the most specific class listed first wins), or None."""
    for kind, code in errors.items():
        if isinstance(exc, kind):
            return code
    return None


async def refuse_if_expired(context: grpc.aio.ServicerContext[Request, Response]) -> None:
    """Stop work the caller has already given up on."""
    remaining = context.time_remaining()
    if remaining is not None and remaining <= 0:
        await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "deadline passed before work began")


class CallPolicyInterceptor(grpc.aio.ServerInterceptor):
    """Honours deadlines and maps a service's domain errors, once, for every handler."""

    def __init__(self, errors: ErrorTable, storage_home: Path | None = None) -> None:
        self._storage_home = storage_home  # named in the answer to a write that hit a full or read-only disk
        self._errors = dict(errors)
        self._kinds = tuple(self._errors)
        # method -> (original, wrapped); the method fixes both handlers' request and reply types
        self._wrapped: dict[str, tuple[object, object]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Request, Response] | None]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Request, Response] | None:
        handler = await continuation(details)
        if handler is None or details.method.startswith(_LIBRARY_PREFIXES):
            return handler
        known = self._wrapped.get(details.method)
        if known is not None and known[0] is handler:
            return cast("grpc.RpcMethodHandler[Request, Response]", known[1])
        wrapped = self._wrap(handler)
        self._wrapped[details.method] = (handler, wrapped)
        return wrapped

    async def _abort_for(self, exc: Exception, context: Context) -> NoReturn:
        code = status_for(exc, self._errors)
        if code is None:
            raise exc
        await context.abort(code, bounded(str(exc)))  # a quoted multi-MB value would overflow the trailer

    async def _abort_if_storage(self, exc: Exception, context: Context) -> NoReturn:
        """A full or read-only disk: RESOURCE_EXHAUSTED that says so and where; anything else propagates."""
        problem = storage_problem(exc, self._storage_home)
        if problem is None:
            raise exc
        await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, problem)

    def _wrap(self, handler: grpc.RpcMethodHandler[Request, Response]) -> grpc.RpcMethodHandler[Request, Response]:
        deserializer, serializer = handler.request_deserializer, handler.response_serializer
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                self._guard(handler.unary_unary), request_deserializer=deserializer, response_serializer=serializer
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                self._guard(handler.unary_stream), request_deserializer=deserializer, response_serializer=serializer
            )
        if handler.stream_unary is not None:
            return grpc.stream_unary_rpc_method_handler(
                self._guard(handler.stream_unary), request_deserializer=deserializer, response_serializer=serializer
            )
        if handler.stream_stream is not None:
            return grpc.stream_stream_rpc_method_handler(
                self._guard(handler.stream_stream), request_deserializer=deserializer, response_serializer=serializer
            )
        return handler

    def _guard(
        self, behaviour: Callable[[Received, grpc.ServicerContext], object]
    ) -> Callable[[Received, Context], object]:
        """``behaviour`` with the policy around it, of the same kind (grpc.aio dispatches on it)."""
        kinds = self._kinds
        # grpc.aio passes its own context; the stubs type a handler's behaviour with grpc's synchronous one.
        run = cast("Callable[[Received, Context], object]", behaviour)
        if inspect.isasyncgenfunction(behaviour):

            async def streamed(request: Received, context: Context) -> AsyncIterator[object]:
                await refuse_if_expired(context)
                try:
                    replies = run(request, context)
                    if not isinstance(replies, AsyncIterator):  # never: an async generator function's call
                        raise TypeError(f"{behaviour!r} returned no async iterator")
                    async for reply in replies:
                        yield reply
                except kinds as exc:
                    await self._abort_for(exc, context)
                except Exception as exc:
                    await self._abort_if_storage(exc, context)

            return streamed
        if inspect.iscoroutinefunction(behaviour):

            async def answered(request: Received, context: Context) -> object:
                await refuse_if_expired(context)
                try:
                    reply = run(request, context)
                    if not inspect.isawaitable(reply):  # never: a coroutine function's call
                        raise TypeError(f"{behaviour!r} returned no awaitable")
                    answer: object = await reply
                    return answer
                except kinds as exc:
                    await self._abort_for(exc, context)
                except Exception as exc:
                    await self._abort_if_storage(exc, context)

            return answered
        return run  # a synchronous handler runs on grpc's thread pool, untouched
