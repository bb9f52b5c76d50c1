"""`authenticate`: the key a method needs must be in the agent's environment (the client sets it
when it starts the agent) or stored by `harness9 login` (the terminal method)."""

from __future__ import annotations

from acp import RequestError

from harness9.acp.acp_errors import invalid_params
from harness9.acp.hello import AUTH_VARIABLES
from harness9.service.config.credentials import provider_environment


def check_method(method_id: str) -> None:
    """Return when the method's key is there; -32602 naming `methodId` for another method,
    `auth_required` naming what is missing."""
    env = provider_environment()
    if method_id == "login":  # `harness9 login` ran in the client's terminal
        if not any(env.get(v, "").strip() for v in AUTH_VARIABLES.values()):
            raise RequestError.auth_required({"message": "no API key is stored: run "
                                              "`harness9 login`"})
        return
    variable = AUTH_VARIABLES.get(method_id)
    if variable is None:
        raise invalid_params("methodId", f"unknown method {method_id!r}: expected one of "
                             f"{', '.join([*AUTH_VARIABLES, 'login'])}")
    if not env.get(variable, "").strip():
        raise RequestError.auth_required({"message": f"{variable} is not set: start the "
                                          "agent with it in its environment, or run "
                                          "`harness9 login`"})
