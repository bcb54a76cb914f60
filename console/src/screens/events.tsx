import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { SelectField, TextField } from '../kit/fields';
import { AppPicker, ConfirmButton, Failure, FormError, Notice, useAction, useChosenApp } from '../kit/parts';
import { ReadOnly } from '../kit/permissions';
import type { Place } from '../place';
import { answerOf, clientFor } from '../queries/client';
import type { Abilities } from '../queries/organizations';

/**
 * Events of an app (docs/events.md): the functions registry (register, list, delete) and the subscriptions of
 * its functions to the platform's events (subscribe, list, unsubscribe).
 */

interface Fn {
  id: number;
  name: string;
  slug: string;
  target: string;
  created_at: string;
}
interface Subscriber {
  subscriber_id: number;
  event: string;
  function_id: number;
  function_name: string;
}

const _enc = encodeURIComponent;

export function EventsScreen({ place, abilities }: { place: Place; abilities?: Abilities }) {
  const site = place.site ?? '';
  const app = useChosenApp(place);
  const configure = abilities?.can('configure') ?? false;
  return (
    <>
      <h1>Events</h1>
      <AppPicker place={place} section="events" />
      {!configure && <ReadOnly what="changing functions and subscriptions" action="configure" />}
      {app && <Functions site={site} app={app} configure={configure} />}
      {app && <Subscriptions site={site} app={app} configure={configure} />}
    </>
  );
}

function useFunctions(site: string, app: string) {
  return useQuery({
    queryKey: ['functions', site, app],
    queryFn: () =>
      answerOf(
        clientFor(site).GET('/api/apps/{app_slug}/functions/', {
          params: {
            path: { app_slug: app },
          },
        }),
      ),
  });
}

function Functions({ site, app, configure }: { site: string; app: string; configure: boolean }) {
  const queries = useQueryClient();
  const functions = useFunctions(site, app);
  const action = useAction();
  const [name, setName] = useState('');
  const [target, setTarget] = useState('');
  const refresh = async () => {
    await queries.invalidateQueries({ queryKey: ['functions', site, app] });
    await queries.invalidateQueries({ queryKey: ['subscribers', site, app] });
  };
  async function register(event: FormEvent) {
    event.preventDefault();
    const done = await action.run(async () => {
      await answerOf(
        clientFor(site).POST('/api/apps/{app_slug}/functions/', {
          params: { path: { app_slug: app } },
          body: { name: name.trim(), target: target.trim() },
        }),
      );
      await refresh();
      return `Function ${name.trim()} registered.`;
    });
    if (done) {
      setName('');
      setTarget('');
    }
  }
  async function remove(fn: Fn) {
    await action.run(async () => {
      await answerOf(
        clientFor(site).DELETE('/api/apps/{app_slug}/functions/{function_id}/', {
          params: { path: { app_slug: app, function_id: fn.id } },
        }),
      );
      await refresh();
      return `Function ${fn.name} deleted, with its subscriptions.`;
    });
  }
  const list = functions.data?.data.functions ?? [];
  return (
    <section aria-labelledby="functions-title">
      <h2 id="functions-title">Functions</h2>
      <Notice text={action.notice} />
      {functions.error ? <Failure error={functions.error} /> : null}
      {functions.data && list.length === 0 && <p>This app has no function yet.</p>}
      {list.length > 0 && (
        <div className="scroll">
          <table>
            <caption className="sr-only">Functions of the app</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Id</th>
                <th scope="col">Target</th>
                {configure && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {list.map((fn) => (
                <tr key={fn.id}>
                  <th scope="row">{fn.name}</th>
                  <td>{fn.id}</td>
                  <td>
                    <code>{fn.target}</code>
                  </td>
                  {configure && (
                    <td className="actions">
                      <ConfirmButton
                        label="Delete"
                        what={`function ${fn.name}`}
                        onConfirm={() => remove(fn)}
                      />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {configure && (
        <form className="card" onSubmit={register} noValidate aria-labelledby="new-function-title">
          <h3 id="new-function-title">Register a function</h3>
          <FormError error={action.error} shown={['name', 'target']} />
          <TextField
            label="Function name"
            value={name}
            onChange={setName}
            required
            error={action.at('name')}
          />
          <TextField
            label="Target"
            value={target}
            onChange={setTarget}
            required
            error={action.at('target')}
            hint="In the cloud, the Lambda function's ARN (tenant-fn-<site>--<name>); locally, a module path under the functions directory."
          />
          <button type="submit" className="primary" disabled={action.busy}>
            Register function
          </button>
        </form>
      )}
    </section>
  );
}

function Subscriptions({ site, app, configure }: { site: string; app: string; configure: boolean }) {
  const queries = useQueryClient();
  const functions = useFunctions(site, app);
  const events = useQuery({
    queryKey: ['events'],
    queryFn: () => answerOf(clientFor(site).GET('/api/cloud/events/')),
  });
  const names = events.data?.data.events ?? [];
  const subscribers = useQuery({
    queryKey: ['subscribers', site, app, names.join()],
    enabled: names.length > 0,
    queryFn: async () => {
      const answers = await Promise.all(
        names.map((name) =>
          answerOf(
            clientFor(site).GET('/api/apps/{app_slug}/events/{event_name}/', {
              params: { path: { app_slug: app, event_name: name } },
            }),
          ),
        ),
      );
      return answers.flatMap((answer) => answer.data.subscribers);
    },
  });
  const action = useAction();
  const [eventName, setEventName] = useState('');
  const [fnId, setFnId] = useState('');
  const list = functions.data?.data.functions ?? [];
  const chosenEvent = eventName || names[0] || '';
  const chosenFn = fnId || String(list[0]?.id ?? '');
  const refresh = () => queries.invalidateQueries({ queryKey: ['subscribers', site, app] });

  async function subscribe(event: FormEvent) {
    event.preventDefault();
    await action.run(async () => {
      await answerOf(
        clientFor(site).POST('/api/cloud/events/{event_name}/subscribe/', {
          params: { path: { event_name: chosenEvent } },
          body: { function_id: Number(chosenFn) },
        }),
      );
      await refresh();
      return `Subscribed to ${chosenEvent}.`;
    });
  }
  async function unsubscribe(subscriber: Subscriber) {
    await action.run(async () => {
      await answerOf(
        clientFor(site).POST('/api/cloud/events/{event_name}/unsubscribe/', {
          params: { path: { event_name: subscriber.event } },
          body: { function_id: subscriber.function_id },
        }),
      );
      await refresh();
      return `${subscriber.function_name} unsubscribed from ${subscriber.event}.`;
    });
  }
  return (
    <section aria-labelledby="subscriptions-title">
      <h2 id="subscriptions-title">Subscriptions</h2>
      <p className="muted">
        PRE_USER_CREATE runs before a user is saved (any refusal stops it); POST_USER_CREATE after (never
        waited for).
      </p>
      <Notice text={action.notice} />
      {subscribers.error ? <Failure error={subscribers.error} /> : null}
      {subscribers.data && subscribers.data.length === 0 && <p>No function of this app is subscribed.</p>}
      {subscribers.data && subscribers.data.length > 0 && (
        <div className="scroll">
          <table>
            <caption className="sr-only">Subscriptions of the app's functions</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Function</th>
                {configure && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {subscribers.data.map((subscriber) => (
                <tr key={subscriber.subscriber_id}>
                  <th scope="row">{subscriber.event}</th>
                  <td>{subscriber.function_name}</td>
                  {configure && (
                    <td className="actions">
                      <button
                        type="button"
                        className="danger"
                        onClick={() => unsubscribe(subscriber)}
                        aria-label={`Unsubscribe ${subscriber.function_name} from ${subscriber.event}`}
                      >
                        Unsubscribe
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {configure && list.length > 0 && (
        <form className="card inline" onSubmit={subscribe} noValidate aria-label="Subscribe a function">
          <FormError error={action.error} />
          <SelectField
            label="Event"
            value={chosenEvent}
            options={names.map((name): [string, string] => [name, name])}
            onChange={setEventName}
          />
          <SelectField
            label="Function"
            value={chosenFn}
            options={list.map((fn): [string, string] => [String(fn.id), fn.name])}
            onChange={setFnId}
          />
          <button type="submit" className="primary" disabled={action.busy}>
            Subscribe
          </button>
        </form>
      )}
    </section>
  );
}
