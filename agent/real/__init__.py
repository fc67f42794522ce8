"""The real model's wing: the same loop against a model that speaks the Messages API.

`AnthropicModel` calls it through the official `anthropic` SDK (imported only
when one is made); `pricing` turns usage into a cost estimate; `record` writes
a run as a script that replays it offline; `server` is a local stand-in for
the Messages API that serves a script to any client (`http_transport` its HTTP layer). Other wings use what this
package names here, never its modules.
"""

from agent.real.anthropic_model import DEFAULT_MODEL, AnthropicModel, ModelCallError
from agent.real.http_transport import serve_until_signalled
from agent.real.pricing import PRICES_READ_ON, PRICES_SOURCE, cost_estimate, price_for, run_usage, total_input
from agent.real.record import record_script, save_recording, script_json
from agent.real.recorder import RecordingProxy, recording_proxy
from agent.real.server import ESTIMATE_NOTE, StandInServer, running_server
from agent.real.server_faults import ServerFault

__all__ = ["DEFAULT_MODEL", "ESTIMATE_NOTE", "PRICES_READ_ON", "PRICES_SOURCE", "AnthropicModel", "ModelCallError",
           "RecordingProxy", "ServerFault", "StandInServer", "cost_estimate", "price_for", "record_script",
           "recording_proxy", "run_usage", "running_server", "save_recording", "script_json",
           "serve_until_signalled", "total_input"]
