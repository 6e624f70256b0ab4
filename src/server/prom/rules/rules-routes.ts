/** `/api/v1/rules`, `/api/v1/alerts`, `/api/v1/alertmanagers` over the rule manager. */
import type { Router } from '../../router.ts';
import { promError, promSuccess } from '../respond.ts';
import type { RuleManager } from './manager.ts';
import { alertsJson, groupsJson } from './rules-json.ts';

export function registerRulesRoutes(router: Router, rules: RuleManager): void {
  router.add(['GET'], '/api/v1/rules', (req) => {
    const type = (req.query.get('type') ?? '').toLowerCase();
    if (type !== '' && type !== 'alert' && type !== 'record') {
      return promError('bad_data', `invalid parameter "type": not supported value ${JSON.stringify(type)}`);
    }
    return promSuccess(groupsJson(rules.groups, type));
  });
  router.add(['GET'], '/api/v1/alerts', () => promSuccess(alertsJson(rules.groups)));
  router.add(['GET'], '/api/v1/alertmanagers', () => promSuccess({
    activeAlertmanagers: rules.alertmanagers.map((a) => ({ url: a.url })), droppedAlertmanagers: [],
  }));
}
